/**
 * Tools of a chat request (`tools`, `tool_choice`, the deprecated
 * `functions` / `function_call`) and the tool calls an assistant makes.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { JsonObject } from "./internal/Checks.ts"
import { openStruct } from "./internal/Structs.ts"

/** A function the model may call. `parameters` is a JSON Schema object. @since 0.1.0 */
export const FunctionDefinition = openStruct({
  name: Schema.String,
  description: Schema.optionalKey(Schema.String),
  parameters: Schema.optionalKey(JsonObject),
  strict: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
})
/** @since 0.1.0 */
export type FunctionDefinition = typeof FunctionDefinition.Type

/** Item of `tools`: only functions are supported. @since 0.1.0 */
export const Tool = openStruct({ type: Schema.Literal("function"), function: FunctionDefinition })
/** @since 0.1.0 */
export type Tool = typeof Tool.Type

/** `tool_choice`: a mode, or one named function to force. @since 0.1.0 */
export const ToolChoice = Schema.Union([
  Schema.Literals(["none", "auto", "required"]),
  openStruct({ type: Schema.Literal("function"), function: openStruct({ name: Schema.String }) })
])
/** @since 0.1.0 */
export type ToolChoice = typeof ToolChoice.Type

/** Deprecated `function_call` of a request: a mode or `{ name }`. @since 0.1.0 */
export const FunctionCallOption = Schema.Union([
  Schema.Literals(["none", "auto"]),
  openStruct({ name: Schema.String })
])
/** @since 0.1.0 */
export type FunctionCallOption = typeof FunctionCallOption.Type

/** A function call made by the model; `arguments` is a JSON text. @since 0.1.0 */
export const FunctionCall = openStruct({ name: Schema.String, arguments: Schema.String })
/** @since 0.1.0 */
export type FunctionCall = typeof FunctionCall.Type

/** A tool call made by the model. @since 0.1.0 */
export const ToolCall = openStruct({ id: Schema.String, type: Schema.Literal("function"), function: FunctionCall })
/** @since 0.1.0 */
export type ToolCall = typeof ToolCall.Type
