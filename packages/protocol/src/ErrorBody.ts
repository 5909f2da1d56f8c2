/**
 * The body of every error answer: `{ error: { message, type, param, code } }`,
 * plus `hook_results` when a hook or guardrail ran (446 denials, and answers
 * that went on despite a failed check).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { InvalidInput } from "./InvalidInput.ts"

/** @since 0.1.0 */
export const ErrorDetail = Schema.Struct({
  message: Schema.String,
  type: Schema.String,
  param: Schema.NullOr(Schema.String),
  code: Schema.NullOr(Schema.String)
})

/**
 * @example
 * import { Schema } from "effect"
 * import { ErrorBody } from "@switchyard/protocol"
 * const json = Schema.encodeSync(ErrorBody.ErrorBody)({
 *   error: { message: "n: must be an integer (got 1.5)", type: "invalid_request_error", param: "n", code: null }
 * })
 *
 * @since 0.1.0
 */
export const ErrorBody = Schema.Struct({
  error: ErrorDetail,
  hook_results: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
})

/** @since 0.1.0 */
export type ErrorBody = typeof ErrorBody.Type

/**
 * The 400 body of an {@link InvalidInput}.
 *
 * @since 0.1.0
 */
export const fromInvalidInput = (error: InvalidInput): ErrorBody => ({
  error: { message: error.message, type: "invalid_request_error", param: error.param, code: null }
})
