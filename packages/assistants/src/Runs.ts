/**
 * Runs (extensions.md, "Assistants, threads and runs"): a run answers `queued` at once and runs
 * in the background through the gateway pipeline (selection, routing, retry, cache, guardrails,
 * limits) as its creator, with the thread's stored provider selection. It ends `completed` with
 * the assistant's message and a `message_creation` step; `incomplete` when an output guardrail
 * denies the answer (the message is `incomplete`, `content_filter`) or the answer was cut at the
 * token limit; `failed` with `last_error` when the call fails.
 *
 * A process holds each run it executes by a lease it renews; a run whose holder stopped (a
 * restart, a crash) is taken over by the next sweep of any process: a `queued` run is started,
 * one that was `in_progress` is marked `failed` with the reason (its call may have reached the
 * provider, so it is not sent twice), one past `expires_at` is `expired`.
 *
 * @example
 * import { Runs } from "@switchyard/assistants"
 * const run = Runs.Runs.use((runs) => runs.create({ context, threadId, body: { assistant_id } }))
 */
import { ServerSecret } from "@switchyard/auth"
import { Gateway, GatewayError, type RequestContext } from "@switchyard/core"
import type { ThreadRun } from "@switchyard/protocol"
import { Cause, Context, Effect, Fiber, FiberMap, Layer, Option, Schedule, Stream } from "effect"
import { ACTIVE } from "./internal/ActiveRun.ts"
import * as RunCall from "./internal/RunCall.ts"
import * as RunEvents from "./internal/RunEvents.ts"
import type { RunEvent } from "./internal/RunEvents.ts"
import * as RunExecution from "./internal/RunExecution.ts"
import * as RunQueueing from "./internal/RunQueueing.ts"
import * as RunSweep from "./internal/RunSweep.ts"
import { STOP_WAIT, SWEEP_INTERVAL, unix } from "./internal/RunTimes.ts"
import { type Caller, ThreadStore } from "./ThreadStore.ts"

export { activeRun } from "./internal/ActiveRun.ts"
export type { RunEvent } from "./internal/RunEvents.ts"
export { EXPIRES_AFTER_SECONDS, LEASE_SECONDS, STOP_WAIT, SWEEP_INTERVAL } from "./internal/RunTimes.ts"

export class Runs extends Context.Service<Runs, {
  /** Creates a `queued` run of the thread and starts it in the background (`stream` is for the route to read). */
  readonly create: (options: {
    readonly context: RequestContext.RequestContext
    readonly threadId: string
    readonly body: ThreadRun.CreateRun
  }) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.GatewayError>
  /**
   * {@link create} with its events: `thread.run.created`, `thread.run.queued`, then every change
   * until the run ends or waits on its caller. The text arrives as one `thread.message.delta`.
   */
  readonly createStreaming: (options: {
    readonly context: RequestContext.RequestContext
    readonly threadId: string
    readonly body: ThreadRun.CreateRun
  }) => Effect.Effect<Stream.Stream<RunEvent>, GatewayError.GatewayError>
  /** {@link submitToolOutputs} with the continued run's events. */
  readonly submitToolOutputsStreaming: (
    workspaceId: string,
    threadId: string,
    runId: string,
    body: ThreadRun.SubmitToolOutputs
  ) => Effect.Effect<Stream.Stream<RunEvent>, GatewayError.GatewayError>
  /** Cancels a run that has not ended; an ended one is a 400. */
  readonly cancel: (
    workspaceId: string,
    threadId: string,
    runId: string
  ) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.GatewayError>
  /**
   * Continues a run waiting in `requires_action` with an output for each function call it waits
   * on; the run is `queued` again and goes on in the background.
   */
  readonly submitToolOutputs: (
    workspaceId: string,
    threadId: string,
    runId: string,
    body: ThreadRun.SubmitToolOutputs
  ) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.GatewayError>
  /** The run once this process has stopped working on it (at once when it is not running here). */
  readonly settled: (
    workspaceId: string,
    threadId: string,
    runId: string
  ) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.GatewayError>
  /** Takes over the runs no process holds (run on start and every {@link SWEEP_INTERVAL}). */
  readonly sweep: Effect.Effect<void, GatewayError.InternalError>
}>()("@switchyard/assistants/Runs") {
  /** For a database shared by several processes (Postgres): a run is taken over once its lease lapses. */
  static readonly layer: Layer.Layer<Runs, never, Requirements> = Layer.suspend(() => make({ soleProcess: false }))

  /**
   * For the only process on its database (the embedded SQLite file): at start-up every run left
   * `queued` or `in_progress` was left by a process that has stopped, so it is taken over at once,
   * without waiting for its lease to lapse.
   */
  static readonly layerSoleProcess: Layer.Layer<Runs, never, Requirements> = Layer.suspend(() =>
    make({ soleProcess: true })
  )
}

type Requirements = ThreadStore | Gateway.Gateway | ServerSecret.ServerSecret

const make = (options: { readonly soleProcess: boolean }): Layer.Layer<Runs, never, Requirements> =>
  Layer.effect(
    Runs,
    Effect.gen(function*() {
      const store = yield* ThreadStore
      const gateway = yield* Gateway.Gateway
      const secret = yield* ServerSecret.ServerSecret
      // the runs this process executes, by id; closing the layer interrupts them (their lease lapses)
      const running = yield* FiberMap.make<string>()
      // finalizers run last-in first-out: this wait comes before the map interrupts what is left
      yield* Effect.addFinalizer(() =>
        FiberMap.awaitEmpty(running).pipe(Effect.timeoutOption(STOP_WAIT), Effect.ignore)
      )
      const events = RunEvents.make()
      const { emit, follow } = events
      const call = RunCall.make({ store, gateway, secret })
      const execute = RunExecution.make({ store, events, call })

      const start = (workspaceId: string, run: ThreadRun.ThreadRun, caller: Caller) =>
        FiberMap.run(running, run.id, execute(workspaceId, run, caller)).pipe(Effect.asVoid)

      const sweepWith = RunSweep.make({ store, start })

      const logged = (effect: Effect.Effect<void, GatewayError.InternalError>) =>
        Effect.catchCause(effect, (cause) => Effect.logError("assistants: sweep failed", Cause.pretty(cause)))
      // the first sweep ends before the layer is built, so it never sees a run this process made;
      // only it may ignore leases (on a database this process alone opens, every lease is a dead one's)
      yield* logged(sweepWith(options.soleProcess))
      const sweep = sweepWith(false)
      yield* Effect.forkScoped(
        logged(sweep).pipe(Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)), Effect.delay(SWEEP_INTERVAL))
      )

      const { prepare, resume } = RunQueueing.make(store)

      return Runs.of({
        create: (options) =>
          Effect.gen(function*() {
            const { caller, run, workspaceId } = yield* prepare(options)
            yield* start(workspaceId, run, caller)
            return run
          }),
        createStreaming: (options) =>
          Effect.gen(function*() {
            const { caller, run, workspaceId } = yield* prepare(options)
            const events = yield* follow(run.id)
            yield* start(workspaceId, run, caller)
            return Stream.concat(
              Stream.make({ event: "thread.run.created", data: run }, { event: "thread.run.queued", data: run }),
              events
            )
          }),
        cancel: (workspaceId, threadId, runId) =>
          Effect.gen(function*() {
            const { run } = yield* store.getRun(workspaceId, threadId, runId)
            if (!ACTIVE.has(run.status)) {
              return yield* new GatewayError.InvalidRequest({
                message: `run_id: run ${runId} has already ended (${run.status})`,
                param: "run_id"
              })
            }
            // an executing fiber elsewhere (another replica) finds its lease gone and its run cancelled
            yield* FiberMap.remove(running, runId)
            const at = yield* unix
            const steps = yield* store.listSteps(workspaceId, threadId, runId, { limit: 100, order: "asc" })
            for (const step of steps.data) {
              if (step.status === "in_progress") {
                yield* store.updateStep(workspaceId, { ...step, status: "cancelled", cancelled_at: at })
              }
            }
            yield* emit(runId, "thread.run.cancelled", { ...run, status: "cancelled", cancelled_at: at })
            return yield* store.updateRun(workspaceId, { ...run, status: "cancelled", cancelled_at: at }, null, {
              onlyIf: run.status
            })
          }),
        submitToolOutputs: (workspaceId, threadId, runId, body) =>
          Effect.gen(function*() {
            const { caller, queued } = yield* resume(workspaceId, threadId, runId, body)
            yield* start(workspaceId, queued, caller)
            return queued
          }),
        submitToolOutputsStreaming: (workspaceId, threadId, runId, body) =>
          Effect.gen(function*() {
            const { caller, queued } = yield* resume(workspaceId, threadId, runId, body)
            const events = yield* follow(queued.id)
            yield* start(workspaceId, queued, caller)
            return Stream.concat(Stream.make({ event: "thread.run.queued", data: queued }), events)
          }),
        settled: (workspaceId, threadId, runId) =>
          Effect.gen(function*() {
            const fiber = yield* FiberMap.get(running, runId)
            if (Option.isSome(fiber)) yield* Fiber.await(fiber.value)
            return (yield* store.getRun(workspaceId, threadId, runId)).run
          }),
        sweep
      })
    })
  )
