/**
 * The fake's default Gemini answers, shaped like the documented `GenerateContentResponse`: text
 * that echoes the last user turn, or a function call when `toolConfig` forces one (mode ANY).
 * Streamed, the text comes in two events and the second carries `finishReason` and the usage.
 */
import { arrayField, countWords, field, stringField } from "../JsonFields.ts"

const lastUserText = (request: unknown): string => {
  const users = arrayField(request, "contents").filter((content) => field(content, "role") === "user")
  const parts = arrayField(users.at(-1), "parts")
  return parts.map((part) => stringField(part, "text") ?? "").join(" ").trim()
}

const promptWords = (request: unknown): number =>
  [...arrayField(request, "contents"), field(request, "systemInstruction")]
    .flatMap((content) => arrayField(content, "parts"))
    .reduce<number>((sum, part) => sum + countWords(stringField(part, "text") ?? ""), 0)

/** The function a forced call names: the first allowed one, else the first declared one. */
const forcedFunction = (request: unknown): string | undefined => {
  const calling = field(field(request, "toolConfig"), "functionCallingConfig")
  if (field(calling, "mode") !== "ANY") return undefined
  const allowed = arrayField(calling, "allowedFunctionNames")[0]
  const declared = arrayField(arrayField(request, "tools")[0], "functionDeclarations")[0]
  return typeof allowed === "string" ? allowed : stringField(declared, "name")
}

const candidateCount = (request: unknown): number => {
  const count = field(field(request, "generationConfig"), "candidateCount")
  return typeof count === "number" ? count : 1
}

export const replyText = (request: unknown): string => `You said: ${lastUserText(request)}`

const usage = (request: unknown, answerWords: number) => {
  const prompt = promptWords(request)
  const candidates = answerWords * candidateCount(request)
  return { promptTokenCount: prompt, candidatesTokenCount: candidates, totalTokenCount: prompt + candidates }
}

const candidates = (request: unknown, parts: (index: number) => ReadonlyArray<unknown>, finish: boolean) =>
  Array.from({ length: candidateCount(request) }, (_, index) => ({
    content: { parts: parts(index), role: "model" },
    ...(finish ? { finishReason: "STOP" } : {}),
    index
  }))

/** The non-streamed answer to a well-formed request. */
export const generateContentReply = (request: unknown, model: string, responseId: string) => {
  const name = forcedFunction(request)
  const text = replyText(request)
  const parts = name === undefined
    ? [{ text }]
    : [{ functionCall: { name, args: { query: lastUserText(request) } } }]
  return {
    candidates: candidates(request, () => parts, true),
    usageMetadata: usage(request, name === undefined ? countWords(text) : 5),
    modelVersion: model,
    responseId
  }
}

/** The streamed answer: one SSE event per `GenerateContentResponse`. */
export const streamReplyEvents = (request: unknown, model: string, responseId: string): ReadonlyArray<unknown> => {
  const name = forcedFunction(request)
  const envelope = { modelVersion: model, responseId }
  if (name !== undefined) {
    const parts = [{ functionCall: { name, args: { query: lastUserText(request) } } }]
    return [{ candidates: candidates(request, () => parts, true), usageMetadata: usage(request, 5), ...envelope }]
  }
  const words = replyText(request).split(" ")
  const first = words.slice(0, 2).join(" ")
  const rest = words.slice(2).join(" ")
  return [
    { candidates: candidates(request, () => [{ text: first }], false), ...envelope },
    {
      candidates: candidates(request, () => [{ text: rest === "" ? "" : ` ${rest}` }], true),
      usageMetadata: usage(request, words.length),
      ...envelope
    }
  ]
}
