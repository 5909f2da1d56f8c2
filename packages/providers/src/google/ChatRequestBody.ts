/**
 * The members of an OpenAI-format chat request that the Gemini translation reads. The edge has
 * already validated the body against the interface's schema; this decodes it again, leniently
 * (unknown members ignored), so the translation works on typed values rather than on casts.
 */
import { GatewayError } from "@switchyard/core"
import { Effect, Schema } from "effect"

const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

const TextPart = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const ImagePart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
})
const AudioPart = Schema.Struct({
  type: Schema.Literal("input_audio"),
  input_audio: Schema.Struct({ data: Schema.String, format: Schema.String })
})
const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({
    file_data: Schema.optionalKey(Schema.String),
    file_id: Schema.optionalKey(Schema.String),
    filename: Schema.optionalKey(Schema.String)
  })
})
const RefusalPart = Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String })

export const ContentPart = Schema.Union([TextPart, ImagePart, AudioPart, FilePart, RefusalPart])
export type ContentPart = typeof ContentPart.Type

const Content = Schema.NullOr(Schema.Union([Schema.String, Schema.Array(ContentPart)]))

const FunctionCall = Schema.Struct({ name: Schema.String, arguments: Schema.String })
export const ToolCall = Schema.Struct({ id: Schema.String, function: FunctionCall })
export type ToolCall = typeof ToolCall.Type

export const Message = Schema.Struct({
  role: Schema.Literals(["system", "developer", "user", "assistant", "tool", "function"]),
  content: Schema.optionalKey(Content),
  name: Schema.optionalKey(Schema.String),
  tool_calls: Schema.optionalKey(Schema.Array(ToolCall)),
  function_call: Schema.optionalKey(Schema.NullOr(FunctionCall)),
  tool_call_id: Schema.optionalKey(Schema.String)
})
export type Message = typeof Message.Type

export const FunctionDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(JsonObject)
})
export type FunctionDefinition = typeof FunctionDefinition.Type

const NamedChoice = Schema.Struct({ function: Schema.Struct({ name: Schema.String }) })
const ToolChoice = Schema.Union([Schema.Literals(["none", "auto", "required"]), NamedChoice])
const FunctionCallOption = Schema.Union([Schema.Literals(["none", "auto"]), Schema.Struct({ name: Schema.String })])

const ResponseFormat = Schema.Struct({
  type: Schema.Literals(["text", "json_object", "json_schema"]),
  json_schema: Schema.optionalKey(Schema.Struct({ schema: Schema.optionalKey(JsonObject) }))
})

const optionalNumber = Schema.optionalKey(Schema.NullOr(Schema.Number))

export const ChatRequestBody = Schema.Struct({
  model: Schema.String,
  messages: Schema.Array(Message),
  max_tokens: optionalNumber,
  max_completion_tokens: optionalNumber,
  temperature: optionalNumber,
  top_p: optionalNumber,
  n: optionalNumber,
  seed: optionalNumber,
  presence_penalty: optionalNumber,
  frequency_penalty: optionalNumber,
  stop: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.String, Schema.Array(Schema.String)]))),
  logprobs: Schema.optionalKey(Schema.NullOr(Schema.Boolean)),
  logit_bias: Schema.optionalKey(Schema.NullOr(JsonObject)),
  response_format: Schema.optionalKey(ResponseFormat),
  thinking: Schema.optionalKey(Schema.Struct({ type: Schema.String, budget_tokens: Schema.Number })),
  tools: Schema.optionalKey(Schema.Array(Schema.Struct({ function: FunctionDefinition }))),
  tool_choice: Schema.optionalKey(ToolChoice),
  functions: Schema.optionalKey(Schema.Array(FunctionDefinition)),
  function_call: Schema.optionalKey(FunctionCallOption),
  stream_options: Schema.optionalKey(
    Schema.NullOr(Schema.Struct({ include_usage: Schema.optionalKey(Schema.Boolean) }))
  )
})
export type ChatRequestBody = typeof ChatRequestBody.Type

const decodeBody = Schema.decodeUnknownEffect(ChatRequestBody)

/** The body as the translation reads it, or `InvalidRequest` naming what did not fit. */
export const decode = (body: unknown): Effect.Effect<ChatRequestBody, GatewayError.InvalidRequest> =>
  decodeBody(body).pipe(
    Effect.mapError((error) =>
      new GatewayError.InvalidRequest({ message: `invalid chat request: ${error.message}`, param: null })
    )
  )
