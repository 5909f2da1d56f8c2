/**
 * The members of an OpenAI-format chat request the Bedrock adapter reads, decoded leniently: the
 * edge has already validated the body, so this only gives the adapter typed access.
 */
import { Schema } from "effect"

const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const ImagePart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
})
const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })
const OtherPart = Schema.Struct({ type: Schema.String })
export const ContentPart = Schema.Union([TextPart, ImagePart, RefusalPart, OtherPart])
export type ContentPart = typeof ContentPart.Type

const Content = Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ContentPart)]))

const ToolCall = Schema.Struct({
  id: Schema.String,
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
})

export const Message = Schema.Struct({
  role: Schema.String,
  content: Schema.optional(Content),
  tool_calls: Schema.optional(Schema.Array(ToolCall)),
  tool_call_id: Schema.optional(Schema.String),
  function_call: Schema.optional(Schema.Unknown)
})
export type Message = typeof Message.Type

const Tool = Schema.Struct({
  type: Schema.String,
  function: Schema.Struct({
    name: Schema.String,
    description: Schema.optional(Schema.String),
    parameters: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
  })
})

const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  Schema.Struct({ type: Schema.String, function: Schema.Struct({ name: Schema.String }) })
])
export type ToolChoice = typeof ToolChoice.Type

const OptionalNumber = Schema.optional(Schema.NullOr(Schema.Number))

export const ChatRequest = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Message),
  max_tokens: OptionalNumber,
  max_completion_tokens: OptionalNumber,
  temperature: OptionalNumber,
  top_p: OptionalNumber,
  n: OptionalNumber,
  stop: Schema.optional(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Schema.String)]))),
  tools: Schema.optional(Schema.Array(Tool)),
  tool_choice: Schema.optional(ToolChoice),
  stream_options: Schema.optional(Schema.NullOr(Schema.Struct({ include_usage: Schema.optional(Schema.Boolean) }))),
  logprobs: Schema.optional(Schema.NullOr(Schema.Boolean)),
  response_format: Schema.optional(Schema.Struct({ type: Schema.String })),
  thinking: Schema.optional(Schema.Struct({ type: Schema.String, budget_tokens: Schema.Number })),
  functions: Schema.optional(Schema.Unknown),
  function_call: Schema.optional(Schema.Unknown)
})
export type ChatRequest = typeof ChatRequest.Type
