import { GatewayError } from "@switchyard/core"
import type { RunStep, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { Cause, Effect, Schedule } from "effect"
import { type Caller, newId, type ThreadStore } from "../ThreadStore.ts"
import { addUsage, type Live, type Outcome } from "./Outcome.ts"
import type { RunEvents } from "./RunEvents.ts"
import * as RunObjects from "./RunObjects.ts"
import { LEASE_SECONDS, SWEEP_INTERVAL, unix } from "./RunTimes.ts"

/** Running a queued run to its end in this process: the call, its lease, its events and what it stores. */
export const make = (deps: {
  readonly store: ThreadStore["Service"]
  readonly events: RunEvents
  readonly call: (
    workspaceId: string,
    run: ThreadRun.ThreadRun,
    caller: Caller,
    live: Live | undefined
  ) => Effect.Effect<Outcome>
}) => {
  const { store, call, events: { emit, followed } } = deps

  /** Ends a run this process works on, unless another process cancelled it meanwhile. */
  const end = (workspaceId: string, run: ThreadRun.ThreadRun) =>
    store.updateRun(workspaceId, run, null, { onlyIf: "in_progress" })

  /** Runs a queued run to its end; the store holds every state it passes through. */
  const execute = (workspaceId: string, queued: ThreadRun.ThreadRun, caller: Caller) =>
    Effect.gen(function*() {
      const startedAt = yield* unix
      if (queued.expires_at !== null && startedAt >= queued.expires_at) {
        const expired: ThreadRun.ThreadRun = { ...queued, status: "expired" }
        yield* emit(queued.id, "thread.run.expired", expired)
        return yield* store.updateRun(workspaceId, expired, null, { onlyIf: "queued" })
      }
      // a run continued after its function calls keeps the time it first started
      const run: ThreadRun.ThreadRun = {
        ...queued,
        status: "in_progress",
        started_at: queued.started_at ?? startedAt
      }
      yield* store.updateRun(workspaceId, run, startedAt + LEASE_SECONDS)
      yield* emit(run.id, "thread.run.in_progress", run)
      const messageId = newId("msg")
      const step = RunObjects.messageCreationStep(run, messageId, startedAt)
      yield* store.insertStep(workspaceId, step)
      yield* emit(run.id, "thread.run.step.created", step)
      yield* emit(run.id, "thread.run.step.in_progress", step)
      // the lease is renewed while the provider works, so no sweep takes the run over
      const renew = unix.pipe(
        Effect.flatMap((now) => store.renewLease(run.id, now + LEASE_SECONDS)),
        Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
        Effect.delay(SWEEP_INTERVAL)
      )
      const started = RunObjects.assistantMessage(run, messageId, startedAt)
      const announce = Effect.andThen(
        emit(run.id, "thread.message.created", started),
        emit(run.id, "thread.message.in_progress", started)
      )
      const delta = (text: string) =>
        emit(run.id, "thread.message.delta", {
          id: messageId,
          object: "thread.message.delta",
          delta: { content: [{ index: 0, type: "text", text: { value: text, annotations: [] } }] }
        })
      const live = followed(run.id) ? { begin: announce, delta } : undefined
      const outcome = yield* Effect.raceFirst(
        call(workspaceId, run, caller, live),
        Effect.andThen(renew, Effect.never)
      )
      // cancelled meanwhile by a request another process served: the cancellation stands
      const current = (yield* store.getRun(workspaceId, run.thread_id, run.id)).run
      if (current.status !== "in_progress") {
        return yield* store.updateStep(workspaceId, { ...step, status: "cancelled", cancelled_at: yield* unix })
      }
      const at = yield* unix
      if (outcome._tag === "Failed") {
        const lastError = { code: outcome.code, message: outcome.message }
        const failedStep: RunStep.RunStep = { ...step, status: "failed", failed_at: at, last_error: lastError }
        yield* store.updateStep(workspaceId, failedStep)
        yield* emit(run.id, "thread.run.step.failed", failedStep)
        const failed: ThreadRun.ThreadRun = { ...run, status: "failed", failed_at: at, last_error: lastError }
        yield* emit(run.id, "thread.run.failed", failed)
        return yield* end(workspaceId, failed)
      }
      if (outcome._tag === "ToolCalls") {
        const callsStep = RunObjects.toolCallsStep(step, outcome.calls, outcome.usage)
        yield* store.updateStep(workspaceId, callsStep)
        yield* emit(run.id, "thread.run.step.delta", {
          id: step.id,
          object: "thread.run.step.delta",
          delta: { step_details: callsStep.step_details }
        })
        // no process holds a run that waits on its caller; it expires at expires_at
        const waiting = RunObjects.waitingRun(run, outcome.calls, addUsage(run.usage, outcome.usage))
        yield* emit(run.id, "thread.run.requires_action", waiting)
        return yield* end(workspaceId, waiting)
      }
      const cut = outcome._tag === "Answered" && outcome.finishReason === "length"
      const filtered = outcome._tag === "Denied" ||
        (outcome._tag === "Answered" && outcome.finishReason === "content_filter")
      const message: ThreadMessage.ThreadMessage = {
        ...RunObjects.assistantMessage(run, messageId, at),
        status: filtered || cut ? "incomplete" : "completed",
        incomplete_details: filtered ? { reason: "content_filter" } : cut ? { reason: "max_tokens" } : null,
        completed_at: filtered || cut ? null : at,
        incomplete_at: filtered || cut ? at : null,
        // a denied answer's content never reaches the client
        content: outcome._tag === "Answered" && !filtered
          ? [{ type: "text", text: { value: outcome.text, annotations: [] } }]
          : []
      }
      yield* store.insertMessage(workspaceId, message)
      if (!(outcome._tag === "Answered" && outcome.announced)) {
        yield* announce
        for (const part of message.content) {
          if (part.type === "text") yield* delta(part.text.value)
        }
      }
      yield* emit(run.id, `thread.message.${message.status}`, message)
      const completedStep: RunStep.RunStep = {
        ...step,
        status: "completed",
        completed_at: at,
        usage: outcome.usage
      }
      yield* store.updateStep(workspaceId, completedStep)
      yield* emit(run.id, "thread.run.step.completed", completedStep)
      const ended: ThreadRun.ThreadRun = {
        ...run,
        status: filtered || cut ? "incomplete" : "completed",
        completed_at: filtered || cut ? null : at,
        incomplete_details: filtered
          ? { reason: "content_filter" }
          : cut
          ? { reason: "max_completion_tokens" }
          : null,
        usage: addUsage(run.usage, outcome.usage)
      }
      yield* emit(run.id, `thread.run.${ended.status}`, ended)
      return yield* end(workspaceId, ended)
    }).pipe(
      // a store failure mid-run is logged; the lease then lapses and a sweep ends the run
      Effect.catchCause((cause) =>
        Effect.andThen(
          Effect.logError("assistants: run failed", Cause.pretty(cause)),
          emit(queued.id, "error", GatewayError.envelope("the run stopped on an internal error", "server_error"))
        )
      )
    )

  return execute
}
