/**
 * The body of `POST /v1/chat/completions` (interface 4.1) with every bound of
 * section 8. Members the gateway does not know are kept as they are: the body
 * is forwarded, and providers accept their own extras.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ChatMessage } from "./ChatMessage.ts"
import { FunctionCallOption, FunctionDefinition, Tool, ToolChoice } from "./ChatTool.ts"
import { IntAtLeast, IntBetween, isMaxItems, isMinItems, isNonEmptyString, JsonObject } from "./internal/Checks.ts"
import * as Fields from "./internal/GenerationFields.ts"
import { discriminatorAnnotation } from "./internal/Problem.ts"
import { openStruct } from "./internal/Structs.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"

/** `response_format`: plain text, any JSON object, or JSON matching a schema. @since 0.1.0 */
export const ResponseFormat = Schema.Union([
  openStruct({ type: Schema.Literal("text") }),
  openStruct({ type: Schema.Literal("json_object") }),
  openStruct({
    type: Schema.Literal("json_schema"),
    json_schema: openStruct({
      name: Schema.String,
      description: Schema.optionalKey(Schema.String),
      schema: Schema.optionalKey(JsonObject),
      strict: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
    })
  })
]).annotate({ [discriminatorAnnotation]: "type", expected: "a response format object" })
/** @since 0.1.0 */
export type ResponseFormat = typeof ResponseFormat.Type

/** `thinking`: reasoning tokens for the models that return them. @since 0.1.0 */
export const Thinking = openStruct({ type: Schema.Literal("enabled"), budget_tokens: IntAtLeast(1) })
/** @since 0.1.0 */
export type Thinking = typeof Thinking.Type

const Fields_ = openStruct({
  messages: Schema.Array(ChatMessage).check(isMinItems(1)),
  model: Schema.String.check(isNonEmptyString),
  frequency_penalty: Fields.penalty,
  presence_penalty: Fields.penalty,
  logit_bias: Fields.logitBias,
  logprobs: Fields.flag,
  top_logprobs: Schema.optionalKey(Schema.NullOr(IntBetween(0, 20))),
  max_tokens: Fields.maxTokens,
  max_completion_tokens: Fields.maxTokens,
  n: Fields.n,
  response_format: Schema.optionalKey(ResponseFormat),
  seed: Fields.seed,
  stop: Fields.stop,
  stream: Fields.flag,
  stream_options: Fields.streamOptions,
  thinking: Schema.optionalKey(Thinking),
  temperature: Fields.temperature,
  top_p: Fields.topP,
  tools: Schema.optionalKey(Schema.Array(Tool).check(isMaxItems(128))),
  tool_choice: Schema.optionalKey(ToolChoice),
  parallel_tool_calls: Schema.optionalKey(Schema.Boolean),
  user: Fields.user,
  function_call: Schema.optionalKey(FunctionCallOption),
  functions: Schema.optionalKey(Schema.Array(FunctionDefinition).check(isMinItems(1), isMaxItems(128)))
})

/**
 * The chat completion request body.
 *
 * @example
 * import { Schema } from "effect"
 * import { ChatCompletionRequest } from "@switchyard/protocol"
 * const body = Schema.decodeUnknownSync(ChatCompletionRequest.ChatCompletionRequest)({
 *   model: "gpt-4o",
 *   messages: [{ role: "user", content: "Hello" }],
 *   temperature: 0.2
 * })
 *
 * @since 0.1.0
 */
export const ChatCompletionRequest = Fields_.check(
  Schema.makeFilter((body) =>
    body.top_logprobs !== undefined && body.top_logprobs !== null && body.logprobs !== true
      ? { path: ["top_logprobs"], issue: "requires logprobs to be true" }
      : undefined
  ),
  Fields.streamOptionsRule
)

/** The decoded body; unknown members are kept under their own names. @since 0.1.0 */
export type ChatCompletionRequest = typeof ChatCompletionRequest.Type

/**
 * Decodes a request body, failing with `InvalidInput`.
 *
 * @since 0.1.0
 */
export const decode = decodeInput(ChatCompletionRequest)

/**
 * Same as {@link decode}, answering a `Result` for the synchronous hot path.
 *
 * @since 0.1.0
 */
export const decodeResult = decodeInputResult(ChatCompletionRequest)
