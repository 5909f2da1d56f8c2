/** Where the judged text lives in OpenAI-format bodies, and how mutators write it back. */
import { type Endpoint, GatewayRequest } from "@switchyard/core"
import type { Rewrite } from "../Check.ts"

const { isJsonObject } = GatewayRequest
type JsonObject = GatewayRequest.JsonObject

/** The text of a message's content: a string, or the text parts of an array. */
const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((part) => isJsonObject(part) && typeof part.text === "string" ? [part.text] : []).join("\n")
    : ""

const rewriteContent = (content: unknown, apply: (text: string) => string): unknown =>
  typeof content === "string"
    ? apply(content)
    : Array.isArray(content)
    ? content.map((part) =>
      isJsonObject(part) && typeof part.text === "string" ? { ...part, text: apply(part.text) } : part
    )
    : content

const stringsOf = (value: unknown): ReadonlyArray<string> =>
  typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === "string") : []

/** The field holding a request's text: `messages`, `prompt` or `input`. */
const fieldOf = (endpoint: Endpoint.Endpoint) =>
  endpoint === "chat.completions" ? "messages" : endpoint === "completions" ? "prompt" : "input"

/** The request's text under judgement: the last message, the prompt, the input. */
export const requestText = (endpoint: Endpoint.Endpoint, body: JsonObject): string => {
  if (endpoint === "chat.completions") {
    const messages = Array.isArray(body.messages) ? body.messages : []
    const last: unknown = messages.at(-1)
    return isJsonObject(last) ? contentText(last.content) : ""
  }
  return stringsOf(body[fieldOf(endpoint)]).join("\n")
}

/** The request with a mutator's rewrite applied to each text (`all`) or the last one (`last`). */
export const rewriteRequest = (endpoint: Endpoint.Endpoint, body: JsonObject, rewrite: Rewrite): JsonObject => {
  const field = fieldOf(endpoint)
  const value = body[field]
  if (typeof value === "string") return { ...body, [field]: rewrite.apply(value) }
  if (!Array.isArray(value)) return body
  const lastIndex = value.length - 1
  const items = value.map((item: unknown, index) => {
    if (rewrite.scope === "last" && index !== lastIndex) return item
    if (endpoint !== "chat.completions") return typeof item === "string" ? rewrite.apply(item) : item
    return isJsonObject(item) ? { ...item, content: rewriteContent(item.content, rewrite.apply) } : item
  })
  return { ...body, [field]: items }
}

const choicesOf = (body: unknown): ReadonlyArray<unknown> =>
  isJsonObject(body) && Array.isArray(body.choices) ? body.choices : []

const choiceText = (choice: unknown): string =>
  !isJsonObject(choice)
    ? ""
    : typeof choice.text === "string"
    ? choice.text
    : isJsonObject(choice.message)
    ? contentText(choice.message.content)
    : ""

/** The answer's text: every choice's content, joined. */
export const responseText = (body: unknown): string => choicesOf(body).map(choiceText).join("\n")

/** The answer with a mutator's rewrite applied to each choice's content. */
export const rewriteResponse = (body: unknown, rewrite: Rewrite): unknown => {
  if (!isJsonObject(body) || !Array.isArray(body.choices)) return body
  return {
    ...body,
    choices: body.choices.map((choice: unknown) => {
      if (!isJsonObject(choice)) return choice
      if (typeof choice.text === "string") return { ...choice, text: rewrite.apply(choice.text) }
      if (!isJsonObject(choice.message)) return choice
      return {
        ...choice,
        message: { ...choice.message, content: rewriteContent(choice.message.content, rewrite.apply) }
      }
    })
  }
}

/** The content text a stream chunk adds, per choice index. */
const chunkDeltas = (chunk: JsonObject): ReadonlyArray<readonly [number, string]> =>
  choicesOf(chunk).flatMap((choice, position) => {
    if (!isJsonObject(choice)) return []
    const index = typeof choice.index === "number" ? choice.index : position
    const text = typeof choice.text === "string"
      ? choice.text
      : isJsonObject(choice.delta) && typeof choice.delta.content === "string"
      ? choice.delta.content
      : undefined
    return text === undefined ? [] : [[index, text] as const]
  })

/** A streamed answer assembled into the shape of a complete one, for the checks. */
export const assemble = (chunks: ReadonlyArray<JsonObject>): JsonObject => {
  const texts = new Map<number, string>()
  for (const chunk of chunks) {
    for (const [index, text] of chunkDeltas(chunk)) texts.set(index, (texts.get(index) ?? "") + text)
  }
  return {
    choices: [...texts.entries()].sort(([a], [b]) => a - b).map(([index, content]) => ({
      index,
      message: { role: "assistant", content }
    }))
  }
}

/**
 * Held-back chunks carrying a rewritten answer: each choice's first content chunk carries its
 * whole rewritten text, later ones carry none (a pattern split across chunks is still caught).
 */
export const rewriteChunks = (
  chunks: ReadonlyArray<JsonObject>,
  rewritten: JsonObject
): ReadonlyArray<JsonObject> => {
  const contents = new Map<number, string>()
  for (const [position, choice] of choicesOf(rewritten).entries()) {
    const index = isJsonObject(choice) && typeof choice.index === "number" ? choice.index : position
    contents.set(index, choiceText(choice))
  }
  const given = new Set<number>()
  return chunks.map((chunk) => {
    if (!Array.isArray(chunk.choices)) return chunk
    return {
      ...chunk,
      choices: chunk.choices.map((choice: unknown, position) => {
        if (!isJsonObject(choice)) return choice
        const index = typeof choice.index === "number" ? choice.index : position
        const text = given.has(index) ? "" : contents.get(index) ?? ""
        if (typeof choice.text === "string") {
          given.add(index)
          return { ...choice, text }
        }
        if (isJsonObject(choice.delta) && typeof choice.delta.content === "string") {
          given.add(index)
          return { ...choice, delta: { ...choice.delta, content: text } }
        }
        return choice
      })
    }
  })
}
