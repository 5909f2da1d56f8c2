/**
 * The body of `POST /v1/messages`, Anthropic's Messages API (docs.anthropic.com, "Messages"
 * reference), as far as the gateway serves it (extensions.md, "Other client formats"): `model`,
 * `system` (a string or text blocks), `messages` with text, image, document, `tool_use`,
 * `tool_result`, `thinking` and `redacted_thinking` blocks, `tools` (custom tools),
 * `tool_choice`, `max_tokens` (required), `stop_sequences`, `temperature`, `top_p`, `top_k`,
 * `thinking`, `metadata`, `stream`. Unknown members are ignored, as Anthropic's own clients send
 * newer ones; a member the gateway knows that breaks a rule is a 400 naming it.
 */
import { InvalidInput } from "@switchyard/protocol"
import { Schema, Struct } from "effect"

const byType = { [InvalidInput.discriminatorAnnotation]: "type", expected: "a content block object" }

const isInt = Schema.isInt({ message: "must be an integer" })
const atLeast = (minimum: number) => Schema.isGreaterThanOrEqualTo(minimum, { message: `must be at least ${minimum}` })
const between = (minimum: number, maximum: number) =>
  Schema.isBetween({ minimum, maximum }, { message: `must be between ${minimum} and ${maximum}` })
const nonEmpty = Schema.isMinLength(1, { message: "must not be empty" })

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
/** Anthropic's prompt-caching marker: forwarded as sent to Anthropic, dropped for the others. */
const cacheControl = Schema.optionalKey(Schema.Unknown)

export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  cache_control: cacheControl
})
export type TextBlock = typeof TextBlock.Type

const Base64Source = Schema.Struct({ type: Schema.Literal("base64"), media_type: Schema.String, data: Schema.String })
const UrlSource = Schema.Struct({ type: Schema.Literal("url"), url: Schema.String })
const TextSource = Schema.Struct({ type: Schema.Literal("text"), media_type: Schema.String, data: Schema.String })

export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: Schema.Union([Base64Source, UrlSource]).annotate(byType),
  cache_control: cacheControl
})
export type ImageBlock = typeof ImageBlock.Type

export const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Union([Base64Source, UrlSource, TextSource]).annotate(byType),
  cache_control: cacheControl
})
export type DocumentBlock = typeof DocumentBlock.Type

export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String.check(nonEmpty),
  name: Schema.String.check(nonEmpty),
  input: JsonObject,
  cache_control: cacheControl
})
export type ToolUseBlock = typeof ToolUseBlock.Type

export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String.check(nonEmpty),
  content: Schema.optionalKey(
    Schema.Union([Schema.String, Schema.Array(Schema.Union([TextBlock, ImageBlock]).annotate(byType))])
  ),
  is_error: Schema.optionalKey(Schema.Boolean),
  cache_control: cacheControl
})
export type ToolResultBlock = typeof ToolResultBlock.Type

export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.String
})
export const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })

export const ContentBlock = Schema.Union([
  TextBlock,
  ImageBlock,
  DocumentBlock,
  ToolUseBlock,
  ToolResultBlock,
  ThinkingBlock,
  RedactedThinkingBlock
]).annotate(byType)
export type ContentBlock = typeof ContentBlock.Type

export const Message = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([Schema.String, Schema.Array(ContentBlock)])
})
export type Message = typeof Message.Type

/** A custom tool; Anthropic's server tools (`web_search_…`, `bash_…`) are not served. */
export const Tool = Schema.Struct({
  type: Schema.optionalKey(Schema.Literal("custom")),
  name: Schema.String.check(nonEmpty),
  description: Schema.optionalKey(Schema.String),
  input_schema: JsonObject,
  cache_control: cacheControl
})
export type Tool = typeof Tool.Type

const parallel = { disable_parallel_tool_use: Schema.optionalKey(Schema.Boolean) }
export const ToolChoice = Schema.Union([
  Schema.Struct({ type: Schema.Literal("auto"), ...parallel }),
  Schema.Struct({ type: Schema.Literal("any"), ...parallel }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String.check(nonEmpty), ...parallel }),
  Schema.Struct({ type: Schema.Literal("none") })
]).annotate({ [InvalidInput.discriminatorAnnotation]: "type", expected: "a tool choice object" })
export type ToolChoice = typeof ToolChoice.Type

export const Thinking = Schema.Union([
  Schema.Struct({ type: Schema.Literal("enabled"), budget_tokens: Schema.Number.check(isInt, atLeast(1024)) }),
  Schema.Struct({ type: Schema.Literal("disabled") })
]).annotate({ [InvalidInput.discriminatorAnnotation]: "type", expected: "a thinking object" })
export type Thinking = typeof Thinking.Type

export const MessagesRequest = Schema.Struct({
  model: Schema.String.check(nonEmpty),
  messages: Schema.Array(Message).check(Schema.isMinLength(1, { message: "must have at least 1 item" })),
  max_tokens: Schema.Number.check(isInt, atLeast(1)),
  system: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(TextBlock)])),
  // OpenAI-format providers take at most four, and a request must fit every target of a config
  stop_sequences: Schema.optionalKey(
    Schema.Array(Schema.String).check(Schema.isMaxLength(4, { message: "must have at most 4 items" }))
  ),
  temperature: Schema.optionalKey(Schema.Number.check(between(0, 1))),
  top_p: Schema.optionalKey(Schema.Number.check(between(0, 1))),
  top_k: Schema.optionalKey(Schema.Number.check(isInt, atLeast(0))),
  tools: Schema.optionalKey(Schema.Array(Tool)),
  tool_choice: Schema.optionalKey(ToolChoice),
  thinking: Schema.optionalKey(Thinking),
  metadata: Schema.optionalKey(Schema.Struct({ user_id: Schema.optionalKey(Schema.NullOr(Schema.String)) })),
  stream: Schema.optionalKey(Schema.Boolean)
})
export type MessagesRequest = typeof MessagesRequest.Type

/**
 * Decodes a body, or answers `InvalidInput` naming the member and the rule
 * (`max_tokens: is required`, `messages[0].content[1].type: must be one of …`).
 *
 * @example
 * import { MessagesRequest } from "@switchyard/messages-format"
 * const result = MessagesRequest.decode({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] })
 */
export const decode = InvalidInput.decodeInputResult(MessagesRequest)

/** The body of `POST /v1/messages/count_tokens`: the same, without `max_tokens`. */
export const CountTokensRequest = MessagesRequest.mapFields(Struct.omit(["max_tokens", "stream"]))
export type CountTokensRequest = typeof CountTokensRequest.Type

export const decodeCountTokens = InvalidInput.decodeInputResult(CountTokensRequest)
