/**
 * Before- and after-request hooks of a gateway config, and the feedback
 * they record.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { JsonObject } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/** Feedback recorded against the trace id when a hook passes or fails. @since 0.1.0 */
export const Feedback = closedStruct({
  value: Schema.optionalKey(Schema.Number),
  weight: Schema.optionalKey(Schema.Number),
  metadata: Schema.optionalKey(JsonObject)
})
/** @since 0.1.0 */
export type Feedback = typeof Feedback.Type

/** A check: `plugin.check` id (no dot means `default.<id>`) and its parameters. @since 0.1.0 */
export const HookCheck = closedStruct({ id: Schema.String, parameters: JsonObject })
/** @since 0.1.0 */
export type HookCheck = typeof HookCheck.Type

/** A `guardrail` judges; a `mutator` may rewrite the request or the response. @since 0.1.0 */
export const HookType = Schema.Literals(["guardrail", "mutator"])

/** `on_fail` / `on_success` that may deny (block): before hooks, output guardrails. @since 0.1.0 */
export const DenyingVerdict = closedStruct({
  feedback: Schema.optionalKey(Feedback),
  deny: Schema.optionalKey(Schema.Boolean)
})

/** `on_fail` / `on_success` that record feedback only: after hooks, input guardrails. @since 0.1.0 */
export const FeedbackVerdict = closedStruct({ feedback: Schema.optionalKey(Feedback) })

/**
 * @example
 * import { Schema } from "effect"
 * import { Hooks } from "@switchyard/protocol"
 * const hook = Schema.decodeUnknownSync(Hooks.BeforeRequestHook)({
 *   id: "no-pii",
 *   checks: [{ id: "default.piiDetection", parameters: {} }],
 *   on_fail: { deny: true }
 * })
 *
 * @since 0.1.0
 */
export const BeforeRequestHook = closedStruct({
  id: Schema.String,
  type: Schema.optionalKey(HookType),
  checks: Schema.optionalKey(Schema.Array(HookCheck)),
  on_fail: Schema.optionalKey(DenyingVerdict),
  on_success: Schema.optionalKey(DenyingVerdict)
})
/** @since 0.1.0 */
export type BeforeRequestHook = typeof BeforeRequestHook.Type

/** `async: true` hooks run after the response and never block it. @since 0.1.0 */
export const AfterRequestHook = closedStruct({
  id: Schema.String,
  type: Schema.optionalKey(HookType),
  async: Schema.optionalKey(Schema.Boolean),
  checks: Schema.optionalKey(Schema.Array(HookCheck)),
  on_fail: Schema.optionalKey(FeedbackVerdict),
  on_success: Schema.optionalKey(FeedbackVerdict)
})
/** @since 0.1.0 */
export type AfterRequestHook = typeof AfterRequestHook.Type
