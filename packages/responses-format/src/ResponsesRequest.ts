/**
 * The body of `POST /v1/responses` (extensions.md, "Other client formats"): the members the
 * gateway translates, with their bounds, so bad input answers 400 naming the member and the
 * rule. Members it does not know are kept (a native OpenAI target receives them).
 *
 * @example
 * import { ResponsesRequest } from "@switchyard/responses-format"
 * const decoded = ResponsesRequest.decode({ model: "gpt-4o-mini", input: "Say hi" })
 */
import { InvalidInput, Metadata } from "@switchyard/protocol"
import { Schema } from "effect"

// The wire format's own rule names (see protocol's internal Problem): a union reports its
// problem at the member that tells its variants apart.
const discriminator = "switchyard/discriminator"
const Rest = Schema.Record(Schema.String, Schema.Unknown)
const open = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), [Rest])
const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
const between = (minimum: number, maximum: number) =>
  Schema.Number.check(Schema.isBetween({ minimum, maximum }, { message: `must be between ${minimum} and ${maximum}` }))
const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

/** Text the client gives (`input_text`), or an earlier answer's text played back (`output_text`). */
export const TextPart = open({ type: Schema.Literals(["input_text", "output_text"]), text: Schema.String })

/** An image by URL (a `data:` URL too); `file_id` images need the vendor's file store. */
export const ImagePart = open({
  type: Schema.Literal("input_image"),
  image_url: nullable(Schema.String),
  file_id: nullable(Schema.String),
  detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"]))
})

export const FilePart = open({
  type: Schema.Literal("input_file"),
  file_data: Schema.optionalKey(Schema.String),
  file_id: nullable(Schema.String),
  filename: Schema.optionalKey(Schema.String)
})

export const RefusalPart = open({ type: Schema.Literal("refusal"), refusal: Schema.String })

export const ContentPart = Schema.Union([TextPart, ImagePart, FilePart, RefusalPart]).annotate({
  [discriminator]: "type",
  expected: "a content part object"
})
export type ContentPart = typeof ContentPart.Type

/** A message item; `type` may be left out, as clients do for plain turns. */
export const MessageItem = open({
  type: Schema.optionalKey(Schema.Literal("message")),
  id: Schema.optionalKey(Schema.String),
  role: Schema.Literals(["user", "assistant", "system", "developer"]),
  content: Schema.Union([Schema.String, Schema.Array(ContentPart)])
})
export type MessageItem = typeof MessageItem.Type

export const FunctionCallItem = open({
  type: Schema.Literal("function_call"),
  id: Schema.optionalKey(Schema.String),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String
})
export type FunctionCallItem = typeof FunctionCallItem.Type

export const FunctionCallOutputItem = open({
  type: Schema.Literal("function_call_output"),
  id: Schema.optionalKey(Schema.String),
  call_id: Schema.String,
  output: Schema.Union([Schema.String, Schema.Array(ContentPart)])
})
export type FunctionCallOutputItem = typeof FunctionCallOutputItem.Type

/** An earlier answer's reasoning, played back; its summary text is what translation keeps. */
export const ReasoningItem = open({
  type: Schema.Literal("reasoning"),
  id: Schema.optionalKey(Schema.String),
  summary: Schema.Array(open({ type: Schema.Literal("summary_text"), text: Schema.String })),
  content: Schema.optionalKey(Schema.Array(open({ type: Schema.String, text: Schema.String }))),
  encrypted_content: nullable(Schema.String)
})
export type ReasoningItem = typeof ReasoningItem.Type

/** An item of a stored response, named by its id. */
export const ItemReference = open({ type: Schema.Literal("item_reference"), id: Schema.String })
export type ItemReference = typeof ItemReference.Type

export const InputItem = Schema.Union([
  MessageItem,
  FunctionCallItem,
  FunctionCallOutputItem,
  ReasoningItem,
  ItemReference
]).annotate({ [discriminator]: "type", expected: "an input item object" })
export type InputItem = typeof InputItem.Type

export const FunctionTool = open({
  type: Schema.Literal("function"),
  name: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })),
  description: nullable(Schema.String),
  parameters: nullable(JsonObject),
  strict: nullable(Schema.Boolean)
})
export type FunctionTool = typeof FunctionTool.Type

/** Any tool: only `function` tools translate; the vendor's built-in tools need a native target. */
export const Tool = open({ type: Schema.String })

export const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  open({ type: Schema.Literal("function"), name: Schema.String }),
  open({ type: Schema.String })
])
export type ToolChoice = typeof ToolChoice.Type

export const TextFormat = Schema.Union([
  open({ type: Schema.Literal("text") }),
  open({ type: Schema.Literal("json_object") }),
  open({
    type: Schema.Literal("json_schema"),
    name: Schema.String,
    schema: JsonObject,
    description: Schema.optionalKey(Schema.String),
    strict: nullable(Schema.Boolean)
  })
]).annotate({ [discriminator]: "type", expected: "a text format object" })
export type TextFormat = typeof TextFormat.Type

export const Reasoning = open({
  effort: nullable(Schema.Literals(["minimal", "low", "medium", "high"])),
  summary: nullable(Schema.Literals(["auto", "concise", "detailed"]))
})
export type Reasoning = typeof Reasoning.Type

export const ResponsesRequest = open({
  model: Schema.String.check(Schema.isMinLength(1, { message: "must not be empty" })),
  input: Schema.optionalKey(Schema.Union([Schema.String, Schema.Array(InputItem)])),
  instructions: nullable(Schema.String),
  previous_response_id: nullable(Schema.String),
  tools: Schema.optionalKey(
    Schema.Array(Tool).check(Schema.isMaxLength(128, { message: "must have at most 128 items" }))
  ),
  tool_choice: Schema.optionalKey(ToolChoice),
  parallel_tool_calls: nullable(Schema.Boolean),
  max_output_tokens: nullable(
    Schema.Number.check(
      Schema.isInt({ message: "must be an integer" }),
      Schema.isGreaterThanOrEqualTo(1, { message: "must be at least 1" })
    )
  ),
  temperature: nullable(between(0, 2)),
  top_p: nullable(between(0, 1)),
  metadata: nullable(Metadata.Metadata),
  text: nullable(open({ format: Schema.optionalKey(TextFormat) })),
  reasoning: nullable(Reasoning),
  store: nullable(Schema.Boolean),
  stream: nullable(Schema.Boolean),
  user: Schema.optionalKey(Schema.String)
}).check(
  Schema.makeFilter((body) =>
    body.input === undefined && (body.previous_response_id ?? null) === null
      ? { path: ["input"], issue: "is required unless previous_response_id is given" }
      : undefined
  )
)
export type ResponsesRequest = typeof ResponsesRequest.Type

/** Decodes a body, answering a `Result` with the `InvalidInput` that names the member and the rule. */
export const decode = InvalidInput.decodeInputResult(ResponsesRequest)
