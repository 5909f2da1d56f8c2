/**
 * The members of a chat request that the provider adapters read, in one
 * lenient schema they share. The edge has already checked the body against
 * `ChatCompletionRequest`; this view only gives the adapters typed values.
 * Members no adapter reads are left out, never refused, so every body the
 * full schema accepts has a view.
 *
 * @since 0.2.0
 */
import { Effect, Option, type Result, Schema, SchemaTransformation } from "effect"
import { decodeInputResult, type InvalidInput } from "./InvalidInput.ts"

const optionalNull = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))

/**
 * A message member the edge checks for some roles only (`tool_call_id` on tool
 * messages, `tool_calls` on assistant ones): on any other role it is an unknown
 * member the edge let through, so a value that does not fit is left out.
 */
const whereItFits = <S extends Schema.Top>(schema: S) =>
  Schema.optional(schema.pipe(Schema.catchDecoding(() => Effect.succeed(Option.none()))))

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
/** Anthropic's prompt-caching marker, forwarded as sent. */
const cacheControl = Schema.optional(Schema.Unknown)

/** @since 0.2.0 */
export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  cache_control: cacheControl
})
/** @since 0.2.0 */
export const ImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String }),
  cache_control: cacheControl
})
/** @since 0.2.0 */
export const InputAudioPart = Schema.Struct({
  type: Schema.Literal("input_audio"),
  input_audio: Schema.Struct({ data: Schema.String, format: Schema.String })
})
/** @since 0.2.0 */
export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({
    file_data: Schema.optional(Schema.String),
    file_id: Schema.optional(Schema.String),
    filename: Schema.optional(Schema.String)
  })
})
/** @since 0.2.0 */
export const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })
/** Any other part, kept by its type so that an adapter can refuse it by name. @since 0.2.0 */
export const OtherPart = Schema.Struct({ type: Schema.String })

/**
 * A content part. Tell the kinds apart with `"text" in part`, `"image_url" in
 * part`…: `OtherPart` has a `type` of any string, so `type` alone does not narrow.
 *
 * @since 0.2.0
 */
export const ContentPart = Schema.Union([TextPart, ImageUrlPart, InputAudioPart, FilePart, RefusalPart, OtherPart])
/** @since 0.2.0 */
export type ContentPart = typeof ContentPart.Type

/** @since 0.2.0 */
export const FunctionCall = Schema.Struct({ name: Schema.String, arguments: Schema.String })
/** @since 0.2.0 */
export const ToolCall = Schema.Struct({ id: Schema.String, function: FunctionCall })
/** @since 0.2.0 */
export type ToolCall = typeof ToolCall.Type

/** A thinking block an earlier answer returned in `content_blocks`, sent back on the next turn. @since 0.2.0 */
export const ThinkingBlock = Schema.Union([
  Schema.Struct({ type: Schema.Literal("thinking"), thinking: Schema.String, signature: Schema.String }),
  Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
])
/** @since 0.2.0 */
export type ThinkingBlock = typeof ThinkingBlock.Type

const isThinkingBlock = Schema.is(ThinkingBlock)

// `content_blocks` is no member of the chat format, so the edge never checked it: its thinking
// blocks are kept and anything else in it is left out (and so is the member, if not an array)
const ThinkingBlocks = Schema.Array(Schema.Unknown).pipe(
  Schema.decodeTo(
    Schema.Array(ThinkingBlock),
    SchemaTransformation.transform<ReadonlyArray<ThinkingBlock>, ReadonlyArray<unknown>>({
      decode: (items) => items.filter(isThinkingBlock),
      encode: (blocks) => blocks
    })
  )
)

/** One message; which members mean something depends on `role`. @since 0.2.0 */
export const Message = Schema.Struct({
  role: Schema.String,
  content: optionalNull(Schema.Union([Schema.String, Schema.Array(ContentPart)])),
  name: whereItFits(Schema.String),
  tool_calls: whereItFits(Schema.NullOr(Schema.Array(ToolCall))),
  tool_call_id: whereItFits(Schema.String),
  function_call: whereItFits(Schema.NullOr(FunctionCall)),
  content_blocks: whereItFits(ThinkingBlocks)
})
/** @since 0.2.0 */
export type Message = typeof Message.Type

/** @since 0.2.0 */
export const FunctionDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.optional(Schema.String),
  parameters: Schema.optional(JsonObject)
})
/** @since 0.2.0 */
export type FunctionDefinition = typeof FunctionDefinition.Type

/** @since 0.2.0 */
export const Tool = Schema.Struct({ function: FunctionDefinition, cache_control: cacheControl })

/** @since 0.2.0 */
export const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  Schema.Struct({ function: Schema.Struct({ name: Schema.String }) })
])
/** @since 0.2.0 */
export type ToolChoice = typeof ToolChoice.Type

/** @since 0.2.0 */
export const FunctionCallOption = Schema.Union([
  Schema.Literals(["none", "auto"]),
  Schema.Struct({ name: Schema.String })
])
/** @since 0.2.0 */
export type FunctionCallOption = typeof FunctionCallOption.Type

/** The edge checks `json_schema` only when `type` is `json_schema`: beside another type, one that does not fit is left out. @since 0.2.0 */
export const ResponseFormat = Schema.Struct({
  type: Schema.String,
  json_schema: whereItFits(Schema.Struct({ schema: Schema.optional(JsonObject) }))
})

/** @since 0.2.0 */
export const Thinking = Schema.Struct({ type: Schema.String, budget_tokens: Schema.optional(Schema.Number) })

/**
 * The view of a chat request body.
 *
 * @example
 * import { Schema } from "effect"
 * import { ChatRequestView } from "@switchyard/protocol"
 * const view = Schema.decodeUnknownSync(ChatRequestView.ChatRequestView)({
 *   model: "claude-sonnet-4",
 *   messages: [{ role: "user", content: "Hello" }],
 *   metadata: { team: "a" } // no adapter reads it: left out
 * })
 *
 * @since 0.2.0
 */
export const ChatRequestView = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Message),
  max_tokens: optionalNull(Schema.Number),
  max_completion_tokens: optionalNull(Schema.Number),
  n: optionalNull(Schema.Number),
  temperature: optionalNull(Schema.Number),
  top_p: optionalNull(Schema.Number),
  // not in the chat format, so unchecked at the edge: kept as sent, for the adapter that forwards it to judge
  top_k: Schema.optional(Schema.Unknown),
  seed: optionalNull(Schema.Number),
  presence_penalty: optionalNull(Schema.Number),
  frequency_penalty: optionalNull(Schema.Number),
  stop: optionalNull(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
  logprobs: optionalNull(Schema.Boolean),
  logit_bias: optionalNull(JsonObject),
  response_format: optionalNull(ResponseFormat),
  thinking: optionalNull(Thinking),
  tools: optionalNull(Schema.Array(Tool)),
  tool_choice: optionalNull(ToolChoice),
  parallel_tool_calls: optionalNull(Schema.Boolean),
  functions: optionalNull(Schema.Array(FunctionDefinition)),
  function_call: optionalNull(FunctionCallOption),
  user: optionalNull(Schema.String),
  stream_options: optionalNull(Schema.Struct({ include_usage: optionalNull(Schema.Boolean) }))
})
/** @since 0.2.0 */
export type ChatRequestView = typeof ChatRequestView.Type

/**
 * The view of a body, or `InvalidInput` naming the member that does not fit.
 * Each adapter call decodes once: keeping views per body object (for retries
 * and fallbacks) cost more in garbage collection than the decode it saved.
 *
 * @example
 * import { Result } from "effect"
 * import { ChatRequestView } from "@switchyard/protocol"
 * const view = ChatRequestView.decode({ model: "m", messages: [{ role: "user", content: "hi" }] })
 * if (Result.isSuccess(view)) console.log(view.success.messages.length) // 1
 *
 * @since 0.2.0
 */
export const decode: (body: unknown) => Result.Result<ChatRequestView, InvalidInput> = decodeInputResult(
  ChatRequestView
)
