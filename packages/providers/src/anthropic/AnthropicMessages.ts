/**
 * OpenAI-format messages as Anthropic Messages API turns. Documented rules relied on
 * (docs.anthropic.com, "Messages" reference and "Tool use"):
 * - only `user` and `assistant` turns; system text goes to the top-level `system`;
 * - images are `{ type: "image", source: { type: "base64", media_type, data } | { type: "url", url } }`,
 *   PDFs are `document` blocks with the same `source`;
 * - a call is an assistant `tool_use` block `{ id, name, input }` (input an object), and its result a
 *   `tool_result` block `{ tool_use_id, content }` in the next user turn, results first;
 * - text blocks must not be empty; consecutive turns of one role are merged into one.
 */
import { GatewayError } from "@switchyard/core"
import type { ChatRequestView } from "@switchyard/protocol"
import { Effect } from "effect"

export type Block = Readonly<Record<string, unknown>>
export interface Turn {
  readonly role: "user" | "assistant"
  readonly content: ReadonlyArray<Block>
}

export interface Conversation {
  readonly system: ReadonlyArray<Block>
  readonly turns: ReadonlyArray<Turn>
}

export const invalid = (message: string, param: string | null) =>
  new GatewayError.InvalidRequest({ message: `anthropic: ${message}`, param })

type Mapped<A> = Effect.Effect<A, GatewayError.InvalidRequest>

/** The system text and the turns of a conversation. */
export const toConversation = (messages: ReadonlyArray<ChatRequestView.Message>): Mapped<Conversation> =>
  Effect.gen(function*() {
    const system: Array<Block> = []
    const turns: Array<{ role: "user" | "assistant"; content: Array<Block> }> = []
    for (const [index, message] of messages.entries()) {
      const param = `messages[${index}]`
      if (message.role === "system" || message.role === "developer") {
        system.push(...textBlocks(message.content))
        continue
      }
      const turn = yield* toTurn(message, param)
      const last = turns.at(-1)
      if (last !== undefined && last.role === turn.role) last.content.push(...turn.content)
      else turns.push({ role: turn.role, content: [...turn.content] })
    }
    return { system, turns }
  })

const toTurn = (message: ChatRequestView.Message, param: string): Mapped<Turn> => {
  switch (message.role) {
    case "user":
      return Effect.map(userBlocks(message.content, param), (content) => ({ role: "user", content }))
    case "assistant":
      return Effect.map(assistantBlocks(message, param), (content) => ({ role: "assistant", content }))
    case "tool":
      return Effect.succeed({
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: message.tool_call_id ?? "",
          content: textBlocks(message.content)
        }]
      })
    default:
      return Effect.fail(
        invalid(`messages with role "${message.role}" are not supported; use tool messages`, `${param}.role`)
      )
  }
}

/** Text of a string or of the text parts; empty text is left out, as Anthropic refuses it. */
const textBlocks = (content: ChatRequestView.Message["content"]): ReadonlyArray<Block> => {
  if (content === undefined || content === null) return []
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }]
  return content.flatMap((
    part
  ) => (part.type === "text" && "text" in part && part.text !== "" ? [textBlock(part)] : []))
}

const textBlock = (part: typeof ChatRequestView.TextPart.Type): Block =>
  part.cache_control === undefined
    ? { type: "text", text: part.text }
    : { type: "text", text: part.text, cache_control: part.cache_control }

const userBlocks = (content: ChatRequestView.Message["content"], param: string): Mapped<ReadonlyArray<Block>> => {
  if (content === undefined || content === null || typeof content === "string") {
    return Effect.succeed(textBlocks(content))
  }
  return Effect.forEach(content, (part, index) => userPart(part, `${param}.content[${index}]`)).pipe(
    Effect.map((blocks) => blocks.flat())
  )
}

const userPart = (part: ChatRequestView.ContentPart, param: string): Mapped<ReadonlyArray<Block>> => {
  if ("text" in part) return Effect.succeed(part.text === "" ? [] : [textBlock(part)])
  if ("image_url" in part) {
    return Effect.map(sourceOf(part.image_url.url, `${param}.image_url.url`), (source) => [
      part.cache_control === undefined
        ? { type: "image", source }
        : { type: "image", source, cache_control: part.cache_control }
    ])
  }
  if ("file" in part) {
    const data = part.file.file_data
    return data === undefined
      ? Effect.fail(invalid("file parts need file_data (a data: URL); file_id is not supported", `${param}.file`))
      : Effect.map(sourceOf(data, `${param}.file.file_data`), (source) => [{ type: "document", source }])
  }
  return Effect.fail(invalid(`content parts of type "${part.type}" are not supported`, `${param}.type`))
}

const dataUrl = /^data:([^;,]+);base64,(.*)$/s

/** A `data:` URL becomes a base64 source; an http(s) URL a url source. */
const sourceOf = (url: string, param: string): Mapped<Block> => {
  const match = dataUrl.exec(url)
  if (match !== null) return Effect.succeed({ type: "base64", media_type: match[1], data: match[2] })
  if (url.startsWith("https://") || url.startsWith("http://")) return Effect.succeed({ type: "url", url })
  return Effect.fail(invalid("an image or file must be a base64 data: URL or an http(s) URL", param))
}

const assistantBlocks = (message: ChatRequestView.Message, param: string): Mapped<ReadonlyArray<Block>> => {
  if (message.function_call !== undefined && message.function_call !== null) {
    return Effect.fail(invalid("function_call in messages is not supported; use tool_calls", `${param}.function_call`))
  }
  const thinking = message.content_blocks ?? []
  return Effect.map(
    Effect.forEach(message.tool_calls ?? [], (call, index) => toolUse(call, `${param}.tool_calls[${index}]`)),
    (calls) => [...thinking, ...textBlocks(message.content), ...calls]
  )
}

const toolUse = (call: ChatRequestView.ToolCall, param: string): Mapped<Block> => {
  const text = call.function.arguments.trim()
  let input: unknown
  try {
    input = text === "" ? {} : JSON.parse(text)
  } catch {
    return Effect.fail(invalid("tool call arguments must be a JSON object", `${param}.function.arguments`))
  }
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? Effect.succeed({ type: "tool_use", id: call.id, name: call.function.name, input })
    : Effect.fail(invalid("tool call arguments must be a JSON object", `${param}.function.arguments`))
}
