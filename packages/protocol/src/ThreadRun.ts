/**
 * Runs (extensions.md, "Assistants, threads and runs"): one turn of an assistant on a thread,
 * run through the gateway pipeline. Statuses: `queued`, `in_progress`, `requires_action`
 * (function calls wait for `submit_tool_outputs`), `cancelling`, `completed`, `failed`,
 * `cancelled`, `expired`, `incomplete`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ResponseFormat, Tools } from "./Assistant.ts"
import { ToolCall, ToolChoice } from "./ChatTool.ts"
import { Int, IntAtLeast, isMaxChars, isMaxItems, isNonEmptyString, NumberBetween } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"
import { Metadata } from "./Metadata.ts"
import { LastError } from "./RunStep.ts"
import { CreateThread } from "./Thread.ts"
import { CreateThreadMessage } from "./ThreadMessage.ts"

/** @since 0.1.0 */
export const RunStatus = Schema.Literals([
  "queued",
  "in_progress",
  "requires_action",
  "cancelling",
  "cancelled",
  "failed",
  "completed",
  "incomplete",
  "expired"
])
/** @since 0.1.0 */
export type RunStatus = typeof RunStatus.Type

/** The function calls a run in `requires_action` waits on. @since 0.1.0 */
export const RequiredAction = Schema.Struct({
  type: Schema.Literal("submit_tool_outputs"),
  submit_tool_outputs: Schema.Struct({ tool_calls: Schema.Array(ToolCall) })
})

/** @since 0.1.0 */
export const RunUsage = Schema.Struct({ completion_tokens: Int, prompt_tokens: Int, total_tokens: Int })
/** @since 0.1.0 */
export type RunUsage = typeof RunUsage.Type

/**
 * @example
 * import { Schema } from "effect"
 * import { ThreadRun } from "@switchyard/protocol"
 * const isRun = Schema.is(ThreadRun.ThreadRun)
 *
 * @since 0.1.0
 */
export const ThreadRun = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("thread.run"),
  created_at: Int,
  thread_id: Schema.String,
  assistant_id: Schema.String,
  status: RunStatus,
  required_action: Schema.NullOr(RequiredAction),
  last_error: Schema.NullOr(LastError),
  expires_at: Schema.NullOr(Int),
  started_at: Schema.NullOr(Int),
  cancelled_at: Schema.NullOr(Int),
  failed_at: Schema.NullOr(Int),
  completed_at: Schema.NullOr(Int),
  incomplete_details: Schema.NullOr(Schema.Struct({ reason: Schema.String })),
  model: Schema.String,
  instructions: Schema.String,
  tools: Tools,
  metadata: Metadata,
  usage: Schema.NullOr(RunUsage),
  temperature: Schema.NullOr(Schema.Number),
  top_p: Schema.NullOr(Schema.Number),
  max_prompt_tokens: Schema.NullOr(Int),
  max_completion_tokens: Schema.NullOr(Int),
  truncation_strategy: Schema.Struct({ type: Schema.Literal("auto"), last_messages: Schema.Null }),
  response_format: ResponseFormat,
  tool_choice: ToolChoice,
  parallel_tool_calls: Schema.Boolean
})
/** @since 0.1.0 */
export type ThreadRun = typeof ThreadRun.Type

const runFields = {
  assistant_id: Schema.String.check(isNonEmptyString),
  /** Overrides the assistant's model for this run. */
  model: Schema.optionalKey(Schema.NullOr(Schema.String.check(isNonEmptyString))),
  /** Replaces the assistant's instructions for this run. */
  instructions: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(256_000)))),
  /** Appended to the instructions for this run. */
  additional_instructions: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(256_000)))),
  /** Added to the thread before the run starts. */
  additional_messages: Schema.optionalKey(Schema.NullOr(Schema.Array(CreateThreadMessage).check(isMaxItems(32)))),
  tools: Schema.optionalKey(Schema.NullOr(Tools)),
  metadata: Schema.optionalKey(Schema.NullOr(Metadata)),
  temperature: Schema.optionalKey(Schema.NullOr(NumberBetween(0, 2))),
  top_p: Schema.optionalKey(Schema.NullOr(NumberBetween(0, 1))),
  max_completion_tokens: Schema.optionalKey(Schema.NullOr(IntAtLeast(1))),
  tool_choice: Schema.optionalKey(Schema.NullOr(ToolChoice)),
  parallel_tool_calls: Schema.optionalKey(Schema.Boolean),
  response_format: Schema.optionalKey(Schema.NullOr(ResponseFormat)),
  stream: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
}

/** Body of `POST /v1/threads/{thread_id}/runs`; a misspelt field is a 400. @since 0.1.0 */
export const CreateRun = closedStruct(runFields)
/** @since 0.1.0 */
export type CreateRun = typeof CreateRun.Type

const { additional_instructions: _instructions, additional_messages: _messages, ...threadAndRunFields } = runFields

/** Body of `POST /v1/threads/runs`: a new thread (`thread`, as `POST /v1/threads` takes it) and its first run. @since 0.1.0 */
export const CreateThreadAndRun = closedStruct({
  ...threadAndRunFields,
  thread: Schema.optionalKey(CreateThread)
})
/** @since 0.1.0 */
export type CreateThreadAndRun = typeof CreateThreadAndRun.Type

/** Body of `POST /v1/threads/{thread_id}/runs/{run_id}`: a run's metadata is all that changes. @since 0.1.0 */
export const ModifyRun = closedStruct({ metadata: Schema.optionalKey(Schema.NullOr(Metadata)) })
/** @since 0.1.0 */
export type ModifyRun = typeof ModifyRun.Type

/** Body of `POST …/runs/{run_id}/submit_tool_outputs`. @since 0.1.0 */
export const SubmitToolOutputs = closedStruct({
  tool_outputs: Schema.Array(closedStruct({ tool_call_id: Schema.String, output: Schema.String })).check(
    isMaxItems(128)
  ),
  stream: Schema.optionalKey(Schema.NullOr(Schema.Boolean))
})
/** @since 0.1.0 */
export type SubmitToolOutputs = typeof SubmitToolOutputs.Type
