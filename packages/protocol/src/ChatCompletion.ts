/**
 * The chat completion response object (interface 2.2). Upstream answers are
 * decoded leniently: members the gateway does not know are kept, so provider
 * extras reach the client when strict vendor compliance is off.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { FunctionCall, ToolCall } from "./ChatTool.ts"
import { openStruct } from "./internal/Structs.ts"
import { Usage } from "./Usage.ts"

const TopLogprob = openStruct({
  token: Schema.String,
  logprob: Schema.Number,
  bytes: Schema.NullOr(Schema.Array(Schema.Number))
})

/** One token of `logprobs.content`. @since 0.1.0 */
export const TokenLogprob = openStruct({
  token: Schema.String,
  logprob: Schema.Number,
  bytes: Schema.NullOr(Schema.Array(Schema.Number)),
  top_logprobs: Schema.Array(TopLogprob)
})

/** `logprobs` of a choice. @since 0.1.0 */
export const Logprobs = openStruct({
  content: Schema.NullOr(Schema.Array(TokenLogprob)),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.Array(TokenLogprob)))
})
/** @since 0.1.0 */
export type Logprobs = typeof Logprobs.Type

/** A text block of `content_blocks` (returned when vendor compliance is not strict). @since 0.1.0 */
export const ContentBlock = openStruct({ type: Schema.String, text: Schema.optionalKey(Schema.String) })

/** The assistant message of a choice. @since 0.1.0 */
export const ResponseMessage = openStruct({
  role: Schema.String,
  content: Schema.optionalKey(Schema.NullOr(Schema.String)),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCall))),
  function_call: Schema.optionalKey(Schema.NullOr(FunctionCall)),
  content_blocks: Schema.optionalKey(Schema.NullOr(Schema.Array(ContentBlock)))
})
/** @since 0.1.0 */
export type ResponseMessage = typeof ResponseMessage.Type

/** @since 0.1.0 */
export const Choice = openStruct({
  index: Schema.Number,
  message: ResponseMessage,
  // `stop` is one value; providers add their own (`length`, `tool_calls`, `content_filter`...).
  finish_reason: Schema.NullOr(Schema.String),
  logprobs: Schema.optionalKey(Schema.NullOr(Logprobs))
})
/** @since 0.1.0 */
export type Choice = typeof Choice.Type

/**
 * @example
 * import { Schema } from "effect"
 * import { ChatCompletion } from "@switchyard/protocol"
 * const answer = Schema.decodeUnknownSync(ChatCompletion.ChatCompletion)({
 *   id: "c1", object: "chat.completion", created: 1, model: "m",
 *   choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }]
 * })
 *
 * @since 0.1.0
 */
export const ChatCompletion = openStruct({
  id: Schema.String,
  object: Schema.Literal("chat.completion"),
  created: Schema.Number,
  model: Schema.String,
  choices: Schema.Array(Choice),
  usage: Schema.optionalKey(Schema.NullOr(Usage)),
  system_fingerprint: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** @since 0.1.0 */
export type ChatCompletion = typeof ChatCompletion.Type
