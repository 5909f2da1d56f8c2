/**
 * One event of a streamed chat completion (`data: {...}` of the SSE stream,
 * which ends with `data: [DONE]`). Decoded leniently, like the full answer.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Logprobs } from "./ChatCompletion.ts"
import { openStruct } from "./internal/Structs.ts"
import { Usage } from "./Usage.ts"

/** A fragment of a tool call; fragments with the same `index` concatenate. @since 0.1.0 */
export const ToolCallDelta = openStruct({
  index: Schema.Number,
  id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  type: Schema.optionalKey(Schema.NullOr(Schema.String)),
  function: Schema.optionalKey(openStruct({
    name: Schema.optionalKey(Schema.NullOr(Schema.String)),
    arguments: Schema.optionalKey(Schema.NullOr(Schema.String))
  }))
})

/** What a chunk adds to the message. @since 0.1.0 */
export const Delta = openStruct({
  role: Schema.optionalKey(Schema.NullOr(Schema.String)),
  content: Schema.optionalKey(Schema.NullOr(Schema.String)),
  refusal: Schema.optionalKey(Schema.NullOr(Schema.String)),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCallDelta))),
  function_call: Schema.optionalKey(Schema.NullOr(openStruct({
    name: Schema.optionalKey(Schema.String),
    arguments: Schema.optionalKey(Schema.String)
  })))
})
/** @since 0.1.0 */
export type Delta = typeof Delta.Type

/** @since 0.1.0 */
export const ChunkChoice = openStruct({
  index: Schema.Number,
  delta: Delta,
  // Absent in some providers' intermediate chunks; null until the last one.
  finish_reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
  logprobs: Schema.optionalKey(Schema.NullOr(Logprobs))
})

/**
 * @example
 * import { Schema } from "effect"
 * import { ChatCompletionChunk } from "@switchyard/protocol"
 * const chunk = Schema.decodeUnknownSync(ChatCompletionChunk.ChatCompletionChunk)({
 *   id: "c1", object: "chat.completion.chunk", created: 1, model: "m",
 *   choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }]
 * })
 *
 * @since 0.1.0
 */
export const ChatCompletionChunk = openStruct({
  id: Schema.String,
  object: Schema.Literal("chat.completion.chunk"),
  created: Schema.Number,
  model: Schema.String,
  // Empty in the final usage chunk of `stream_options.include_usage`.
  choices: Schema.Array(ChunkChoice),
  usage: Schema.optionalKey(Schema.NullOr(Usage)),
  system_fingerprint: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/** @since 0.1.0 */
export type ChatCompletionChunk = typeof ChatCompletionChunk.Type
