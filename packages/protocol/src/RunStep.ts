/**
 * Run steps (interface 2.4) and the page that lists them (4.3).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int } from "./internal/Checks.ts"

/** What a step did; the gateway creates `message_creation` steps. @since 0.1.0 */
export const StepDetails = Schema.Struct({
  type: Schema.String,
  message_creation: Schema.optionalKey(Schema.Struct({ message_id: Schema.String })),
  tool_calls: Schema.optionalKey(Schema.Array(Schema.Unknown))
})

/** @since 0.1.0 */
export const LastError = Schema.Struct({
  // `server_error` and `rate_limit_exceeded` are the codes the gateway writes.
  code: Schema.String,
  message: Schema.String
})

const RunStepUsage = Schema.Struct({ completion_tokens: Int, prompt_tokens: Int, total_tokens: Int })

/**
 * @example
 * import { Schema } from "effect"
 * import { RunStep } from "@switchyard/protocol"
 * const isRunStep = Schema.is(RunStep.RunStep)
 *
 * @since 0.1.0
 */
export const RunStep = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("thread.run.step"),
  created_at: Int,
  assistant_id: Schema.String,
  thread_id: Schema.String,
  run_id: Schema.String,
  type: Schema.String,
  status: Schema.Literals(["in_progress", "completed", "failed", "cancelled", "expired"]),
  step_details: StepDetails,
  last_error: Schema.NullOr(LastError),
  expired_at: Schema.NullOr(Int),
  cancelled_at: Schema.NullOr(Int),
  failed_at: Schema.NullOr(Int),
  completed_at: Schema.NullOr(Int),
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.String)),
  usage: Schema.NullOr(RunStepUsage)
})
/** @since 0.1.0 */
export type RunStep = typeof RunStep.Type

/** A page of run steps. @since 0.1.0 */
export const RunStepList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(RunStep),
  first_id: Schema.NullOr(Schema.String),
  last_id: Schema.NullOr(Schema.String),
  has_more: Schema.Boolean
})
/** @since 0.1.0 */
export type RunStepList = typeof RunStepList.Type
