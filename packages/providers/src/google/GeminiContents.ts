/**
 * OpenAI-format messages as Gemini `systemInstruction` and `contents`. Documented rules relied on
 * (ai.google.dev/api/generate-content, ai.google.dev/gemini-api/docs/function-calling):
 * - a Content has `role` "user" or "model" and `parts`; the system prompt is a separate
 *   `systemInstruction` Content, so system and developer messages are gathered there in order;
 * - images are `inlineData {mimeType, data}` (base64) or `fileData {mimeType, fileUri}`;
 * - a call the model made is a `functionCall {name, args}` part of a model turn, and its result a
 *   `functionResponse {name, response}` part of the following user turn; results carry the
 *   function's name, not an id, so the name is looked up from the assistant's tool call id.
 */
import { GatewayError } from "@switchyard/core"
import type { ChatRequestView } from "@switchyard/protocol"
import { Effect } from "effect"
import { parseJsonObject } from "../UpstreamCall.ts"

type Message = ChatRequestView.Message

export type GeminiPart =
  | { readonly text: string }
  | { readonly inlineData: { readonly mimeType: string; readonly data: string } }
  | { readonly fileData: { readonly mimeType: string; readonly fileUri: string } }
  | { readonly functionCall: { readonly name: string; readonly args: { readonly [key: string]: unknown } } }
  | { readonly functionResponse: { readonly name: string; readonly response: { readonly content: string } } }

export interface GeminiContent {
  readonly role: "user" | "model"
  readonly parts: ReadonlyArray<GeminiPart>
}

export interface GeminiConversation {
  readonly systemInstruction: { readonly parts: ReadonlyArray<GeminiPart> } | undefined
  readonly contents: ReadonlyArray<GeminiContent>
}

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

/** The conversation in Gemini's shape; consecutive turns of one role are merged into one Content. */
export const toConversation = (
  messages: ReadonlyArray<Message>
): Effect.Effect<GeminiConversation, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    const system: Array<GeminiPart> = []
    const contents: Array<{ role: "user" | "model"; parts: Array<GeminiPart> }> = []
    const callNames = new Map<string, string>()
    const push = (role: "user" | "model", parts: ReadonlyArray<GeminiPart>) => {
      const last = contents.at(-1)
      if (last !== undefined && last.role === role) last.parts.push(...parts)
      else contents.push({ role, parts: [...parts] })
    }
    for (const [index, message] of messages.entries()) {
      const param = `messages[${index}]`
      switch (message.role) {
        case "system":
        case "developer":
          system.push(...textParts(message))
          break
        case "user":
          push("user", yield* userParts(message, param))
          break
        case "assistant": {
          const calls = yield* callParts(message, param)
          for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name)
          push("model", [...textParts(message), ...calls])
          break
        }
        case "tool": {
          const name = callNames.get(message.tool_call_id ?? "")
          if (name === undefined) {
            return yield* invalid(
              `${param}.tool_call_id: "${
                message.tool_call_id ?? ""
              }" answers no tool call of an earlier assistant message`,
              `${param}.tool_call_id`
            )
          }
          push("user", [functionResponse(name, joinedText(message))])
          break
        }
        case "function":
          push("user", [functionResponse(message.name ?? "", joinedText(message))])
          break
        default:
          return yield* invalid(
            `${param}.role: messages with role "${message.role}" are not supported`,
            `${param}.role`
          )
      }
    }
    return { systemInstruction: system.length === 0 ? undefined : { parts: system }, contents }
  })

const functionResponse = (name: string, content: string): GeminiPart => ({
  functionResponse: { name, response: { content } }
})

const joinedText = (message: Message): string =>
  textParts(message).map((part) => ("text" in part ? part.text : "")).join("")

/** Text of a message whose content is text (a string or text/refusal parts). */
const textParts = (message: Message): ReadonlyArray<GeminiPart> => {
  const content = message.content
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content === "" ? [] : [{ text: content }]
  const parts: Array<GeminiPart> = []
  for (const part of content) {
    if ("text" in part) parts.push({ text: part.text })
    else if ("refusal" in part) parts.push({ text: part.refusal })
  }
  return parts
}

const userParts = (message: Message, param: string) =>
  Effect.gen(function*() {
    const content = message.content
    if (content === undefined || content === null) return []
    if (typeof content === "string") return [{ text: content }]
    const parts: Array<GeminiPart> = []
    for (const [index, part] of content.entries()) parts.push(yield* userPart(part, `${param}.content[${index}]`))
    return parts
  })

const userPart = (
  part: ChatRequestView.ContentPart,
  param: string
): Effect.Effect<GeminiPart, GatewayError.InvalidRequest> => {
  if ("text" in part) return Effect.succeed({ text: part.text })
  if ("refusal" in part) return Effect.succeed({ text: part.refusal })
  if ("image_url" in part) return mediaPart(part.image_url.url, `${param}.image_url.url`)
  if ("input_audio" in part) {
    return Effect.succeed({
      inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data }
    })
  }
  if ("file" in part) {
    return part.file.file_data === undefined
      ? Effect.fail(invalid(`${param}.file: google accepts files as file_data only, not file_id`, `${param}.file`))
      : mediaPart(part.file.file_data, `${param}.file.file_data`)
  }
  return Effect.fail(invalid(`${param}.type: content parts of type "${part.type}" are not supported`, `${param}.type`))
}

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s

/** A `data:` URL becomes inline bytes; an http(s) URL a file reference Gemini fetches itself. */
const mediaPart = (url: string, param: string): Effect.Effect<GeminiPart, GatewayError.InvalidRequest> => {
  const data = DATA_URL.exec(url)
  if (data !== null) return Effect.succeed({ inlineData: { mimeType: data[1] ?? "", data: data[2] ?? "" } })
  if (/^(https?|gs):\/\//.test(url)) return Effect.succeed({ fileData: { mimeType: mimeTypeOf(url), fileUri: url } })
  return Effect.fail(invalid(`${param}: must be a base64 data: URL or an http(s) URL`, param))
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  mp3: "audio/mp3",
  wav: "audio/wav",
  mp4: "video/mp4"
}

/** Gemini needs a MIME type for a file reference; the URL's extension is the only hint. */
export const mimeTypeOf = (url: string): string => {
  const path = URL.parse(url)?.pathname ?? url
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase()
  return (extension === undefined ? undefined : MIME_TYPES[extension]) ?? "image/*"
}

const callParts = (message: Message, param: string) =>
  Effect.gen(function*() {
    const calls = (message.tool_calls ?? []).map((call) => call.function)
    if (message.function_call !== undefined && message.function_call !== null) calls.push(message.function_call)
    const parts: Array<GeminiPart> = []
    for (const [index, call] of calls.entries()) {
      const args = call.arguments.trim() === "" ? {} : parseJsonObject(call.arguments)
      if (args === undefined) {
        const at = `${param}.tool_calls[${index}].function.arguments`
        return yield* invalid(`${at}: must be a JSON object for google`, at)
      }
      parts.push({ functionCall: { name: call.name, args } })
    }
    return parts
  })
