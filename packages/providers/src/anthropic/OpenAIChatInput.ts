/**
 * The parts of an OpenAI-format chat request the Anthropic mapping reads, decoded leniently: the
 * edge has already validated the body, so these schemas only give the mapping typed values.
 * Unknown members are dropped here; the mapping names every member it forwards.
 */
import { Schema } from "effect"

const JsonRecord = Schema.Record(Schema.String, Schema.Unknown)
const cacheControl = Schema.optionalKey(Schema.Unknown)

export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  cache_control: cacheControl
})
export const ImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String }),
  cache_control: cacheControl
})
export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({ file_data: Schema.optionalKey(Schema.String), file_id: Schema.optionalKey(Schema.String) })
})
/** Any other part (`input_audio`, `refusal`): kept by type so the mapping can refuse or drop it. */
export const OtherPart = Schema.Struct({ type: Schema.String })
export const Part = Schema.Union([TextPart, ImageUrlPart, FilePart, OtherPart])
export type Part = typeof Part.Type

const Content = Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Part)]))

export const ToolCall = Schema.Struct({
  id: Schema.String,
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})
export type ToolCall = typeof ToolCall.Type

/** A thinking block an earlier answer returned in `content_blocks`, sent back on the next turn. */
export const ThinkingBlock = Schema.Union([
  Schema.Struct({ type: Schema.Literal("thinking"), thinking: Schema.String, signature: Schema.String }),
  Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
])
export type ThinkingBlock = typeof ThinkingBlock.Type

export const Message = Schema.Struct({
  role: Schema.String,
  content: Schema.optionalKey(Content),
  tool_calls: Schema.optionalKey(Schema.NullOr(Schema.Array(ToolCall))),
  tool_call_id: Schema.optionalKey(Schema.String),
  function_call: Schema.optionalKey(Schema.Unknown),
  content_blocks: Schema.optionalKey(Schema.Array(Schema.Union([ThinkingBlock, OtherPart])))
})
export type Message = typeof Message.Type

const FunctionDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(JsonRecord)
})
export type FunctionDefinition = typeof FunctionDefinition.Type

export const Tool = Schema.Struct({ function: FunctionDefinition, cache_control: cacheControl })
export type Tool = typeof Tool.Type

export const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  Schema.Struct({ function: Schema.Struct({ name: Schema.String }) })
])
export type ToolChoice = typeof ToolChoice.Type

const FunctionCallOption = Schema.Union([
  Schema.Literals(["none", "auto"]),
  Schema.Struct({ name: Schema.String })
])

const optionalNull = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

export const ChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Message),
  max_tokens: optionalNull(Schema.Number),
  max_completion_tokens: optionalNull(Schema.Number),
  n: optionalNull(Schema.Number),
  stop: optionalNull(Schema.Union([Schema.String, Schema.Array(Schema.String)])),
  temperature: optionalNull(Schema.Number),
  top_p: optionalNull(Schema.Number),
  top_k: optionalNull(Schema.Number),
  tools: optionalNull(Schema.Array(Tool)),
  tool_choice: optionalNull(ToolChoice),
  parallel_tool_calls: optionalNull(Schema.Boolean),
  functions: optionalNull(Schema.Array(FunctionDefinition)),
  function_call: optionalNull(FunctionCallOption),
  user: optionalNull(Schema.String),
  thinking: optionalNull(Schema.Struct({ type: Schema.String, budget_tokens: Schema.optionalKey(Schema.Number) })),
  logprobs: optionalNull(Schema.Boolean),
  response_format: optionalNull(Schema.Struct({ type: Schema.String })),
  stream_options: optionalNull(Schema.Struct({ include_usage: optionalNull(Schema.Boolean) }))
})
export type ChatRequest = typeof ChatRequest.Type
