import { GatewayError, type RequestContext } from "@switchyard/core"
import type { ThreadRun } from "@switchyard/protocol"
import { Effect, Option } from "effect"
import { type Caller, ThreadStore } from "../ThreadStore.ts"
import { activeRun, busy } from "./ActiveRun.ts"
import { decodeStepToolCalls } from "./Outcome.ts"
import * as RunObjects from "./RunObjects.ts"
import { EXPIRES_AFTER_SECONDS, LEASE_SECONDS, unix } from "./RunTimes.ts"

/** The checks and writes that queue a run, new or continued, before this process starts it. */
export const make = (store: ThreadStore["Service"]) => {
  /** Checks and writes a new queued run; `create` and `createStreaming` then start it. */
  const prepare = ({ body, context, threadId }: {
    readonly context: RequestContext.RequestContext
    readonly threadId: string
    readonly body: ThreadRun.CreateRun
  }) =>
    Effect.gen(function*() {
      const workspaceId = context.principal.workspaceId
      yield* store.getThread(workspaceId, threadId)
      const assistant = yield* store.getAssistant(workspaceId, body.assistant_id).pipe(
        Effect.catchTag("NotFound", () =>
          Effect.fail(
            new GatewayError.InvalidRequest({
              message: `assistant_id: no assistant ${body.assistant_id} in this workspace`,
              param: "assistant_id"
            })
          ))
      )
      // a quick refusal before any message is added; insertRunIfIdle settles a race
      const active = yield* activeRun(workspaceId, threadId).pipe(Effect.provideService(ThreadStore, store))
      if (Option.isSome(active)) return yield* busy(threadId, active.value)
      for (const message of body.additional_messages ?? []) {
        yield* store.createMessage(workspaceId, threadId, message)
      }
      const at = yield* unix
      const instructions = [body.instructions ?? assistant.instructions ?? "", body.additional_instructions ?? ""]
        .filter((part) => part !== "")
        .join("\n\n")
      const run = RunObjects.queuedRun({
        body,
        assistant,
        threadId,
        instructions,
        at,
        expiresAt: at + EXPIRES_AFTER_SECONDS
      })
      const caller: Caller = {
        keyId: context.principal.keyId,
        scopes: [...context.principal.scopes],
        ...(context.principal.expiresAt === undefined ? {} : { expiresAt: context.principal.expiresAt })
      }
      const blocking = yield* store.insertRunIfIdle(workspaceId, run, caller, at + LEASE_SECONDS)
      if (Option.isSome(blocking)) return yield* busy(threadId, blocking.value)
      return { workspaceId, run, caller }
    })

  /** Checks the outputs of a run waiting on its caller and queues it again; the callers then start it. */
  const resume = (
    workspaceId: string,
    threadId: string,
    runId: string,
    body: ThreadRun.SubmitToolOutputs
  ) =>
    Effect.gen(function*() {
      const { caller, run } = yield* store.getRun(workspaceId, threadId, runId)
      if (run.status !== "requires_action" || run.required_action === null) {
        return yield* new GatewayError.InvalidRequest({
          message: `run_id: run ${runId} is ${run.status}, not requires_action: it waits on no tool output`,
          param: "run_id"
        })
      }
      const expected = run.required_action.submit_tool_outputs.tool_calls.map((call) => call.id)
      const given = body.tool_outputs.map((output) => output.tool_call_id)
      const missing = expected.filter((id) => !given.includes(id))
      const unknown = given.find((id) => !expected.includes(id))
      if (unknown !== undefined || missing.length > 0 || new Set(given).size !== given.length) {
        return yield* new GatewayError.InvalidRequest({
          message: `tool_outputs: one output for each of ${expected.join(", ")} is needed` +
            (unknown === undefined ? "" : `; ${unknown} is not one of them`) +
            (missing.length === 0 ? "" : `; missing ${missing.join(", ")}`),
          param: "tool_outputs"
        })
      }
      const at = yield* unix
      // the conditional write is the claim: of two requests submitting at once, one goes on
      const queued: ThreadRun.ThreadRun = { ...run, status: "queued", required_action: null }
      if (!(yield* store.requeueRun(workspaceId, queued, at + LEASE_SECONDS))) {
        return yield* new GatewayError.InvalidRequest({
          message: `run_id: run ${runId} no longer waits on tool outputs (they were submitted, or it ended)`,
          param: "run_id"
        })
      }
      const steps = yield* store.listSteps(workspaceId, threadId, runId, { limit: 100, order: "desc" })
      const waiting = steps.data.find((step) => step.type === "tool_calls" && step.status === "in_progress")
      if (waiting !== undefined) {
        const calls = Option.getOrElse(decodeStepToolCalls(waiting.step_details.tool_calls), () => [])
        yield* store.updateStep(workspaceId, {
          ...waiting,
          status: "completed",
          completed_at: at,
          step_details: {
            type: "tool_calls",
            tool_calls: calls.map((call) => ({
              ...call,
              function: {
                ...call.function,
                output: body.tool_outputs.find((output) => output.tool_call_id === call.id)?.output ?? ""
              }
            }))
          }
        })
      }
      return { queued, caller }
    })

  return { prepare, resume }
}
