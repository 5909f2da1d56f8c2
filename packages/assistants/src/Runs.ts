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
import { Gateway, GatewayError, Principal, RequestContext } from "@switchyard/core"
import type { RunStep, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { Cause, Context, Duration, Effect, Fiber, FiberMap, Layer, Option, Queue, Schedule, Stream } from "effect"
import {
  addUsage,
  collect,
  decodeCompletion,
  decodeStepToolCalls,
  failureOf,
  type Live,
  type Outcome
} from "./internal/Outcome.ts"
import * as RunObjects from "./internal/RunObjects.ts"
import * as RunRequest from "./RunRequest.ts"
import * as RunSelection from "./RunSelection.ts"
import { type Caller, newId, ThreadStore } from "./ThreadStore.ts"

/** How long a run may wait or work before it expires, as the common format has it. */
export const EXPIRES_AFTER_SECONDS = 600
/** How long a process holds a run it executes without renewing the lease. */
export const LEASE_SECONDS = 60
/** How often the lease is renewed and abandoned runs are looked for. */
export const SWEEP_INTERVAL = Duration.seconds(20)
/**
 * How long a stopping process lets the runs it works on finish. One still working then is
 * interrupted; its lease lapses and a sweep (after a restart, or another replica's) ends it.
 */
export const STOP_WAIT = Duration.seconds(10)

const ACTIVE: ReadonlySet<ThreadRun.RunStatus> = new Set(["queued", "in_progress", "requires_action", "cancelling"])

/**
 * The thread's run that has not ended, if any: while it works, the thread takes no new run nor
 * message (its conversation is what the run sends).
 */
export const activeRun = (
  workspaceId: string,
  threadId: string
): Effect.Effect<Option.Option<ThreadRun.ThreadRun>, GatewayError.GatewayError, ThreadStore> =>
  ThreadStore.use((store) =>
    Effect.map(
      store.listRuns(workspaceId, threadId, { limit: 1, order: "desc" }),
      (page) => Option.filter(Option.fromUndefinedOr(page.data[0]), (run) => ACTIVE.has(run.status))
    )
  )

/** A thread already running: 400, as the common assistants format answers. */
const busy = (threadId: string, active: ThreadRun.ThreadRun) =>
  new GatewayError.InvalidRequest({
    message: `thread_id: thread ${threadId} already has an active run ${active.id} (${active.status})`,
    param: "thread_id"
  })

/** One server-sent event of a streamed run, named as the common assistants format names them. */
export interface RunEvent {
  readonly event: string
  readonly data: unknown
}

/** The events after which a run's stream ends: the run has ended or waits on its caller. */
const FINAL_EVENTS: ReadonlySet<string> = new Set([
  "thread.run.completed",
  "thread.run.incomplete",
  "thread.run.failed",
  "thread.run.cancelled",
  "thread.run.expired",
  "thread.run.requires_action",
  "error"
])

const unix = Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (ms) => Math.floor(ms / 1000))

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
      // the streams that follow a run this process works on, by run id
      const listeners = new Map<string, Queue.Queue<RunEvent>>()
      const emit = (runId: string, event: string, data: unknown) => {
        const queue = listeners.get(runId)
        return queue === undefined ? Effect.void : Effect.asVoid(Queue.offer(queue, { event, data }))
      }
      /** Follows a run from now on, until its stream's last event. */
      const follow = (runId: string) =>
        Effect.map(Queue.unbounded<RunEvent>(), (queue) => {
          listeners.set(runId, queue)
          return Stream.fromQueue(queue).pipe(
            Stream.takeUntil((event) => FINAL_EVENTS.has(event.event)),
            Stream.ensuring(Effect.sync(() => listeners.delete(runId)))
          )
        })

      /** Ends a run this process works on, unless another process cancelled it meanwhile. */
      const end = (workspaceId: string, run: ThreadRun.ThreadRun) =>
        store.updateRun(workspaceId, run, null, { onlyIf: "in_progress" })

      /** The function calls of this run's earlier rounds, with their outputs, oldest first. */
      const answeredRounds = (workspaceId: string, run: ThreadRun.ThreadRun) =>
        Effect.map(
          store.listSteps(workspaceId, run.thread_id, run.id, { limit: 100, order: "asc" }),
          (steps) =>
            steps.data.flatMap((step) => {
              if (step.type !== "tool_calls" || step.status !== "completed") return []
              const calls = Option.getOrElse(decodeStepToolCalls(step.step_details.tool_calls), () => [])
              return [calls.map((call) => ({
                id: call.id,
                name: call.function.name,
                arguments: call.function.arguments,
                output: call.function.output ?? ""
              }))]
            })
        )

      /** The pipeline call of one run, as its creator, with the assistant's or else the thread's selection. */
      const call = (workspaceId: string, run: ThreadRun.ThreadRun, caller: Caller, live: Live | undefined) =>
        Effect.gen(function*() {
          const threadHeaders = yield* RunSelection.open(
            secret,
            yield* store.threadSelection(workspaceId, run.thread_id)
          )
          // an assistant deleted since the run was created leaves the run on the thread's selection
          const own = yield* store.assistantSelection(workspaceId, run.assistant_id).pipe(
            Effect.catchTag("NotFound", () => Effect.succeed(null))
          )
          const assistantHeaders = own === null ? undefined : yield* RunSelection.open(secret, own)
          const headers = RunSelection.forRun(threadHeaders, assistantHeaders)
          const principal: Principal.Principal = {
            ...Principal.make({ keyId: caller.keyId, workspaceId, scopes: caller.scopes }),
            ...(caller.expiresAt === undefined ? {} : { expiresAt: caller.expiresAt })
          }
          const context = yield* RequestContext.inProcess({ principal, headers })
          const messages = yield* store.conversation(workspaceId, run.thread_id)
          const body = RunRequest.chatBody(run, messages, yield* answeredRounds(workspaceId, run))
          const answer = yield* gateway.handle({
            endpoint: "chat.completions",
            // followed runs stream from the provider, so the text reaches the follower as it is written
            body: live === undefined ? body : { ...body, stream: true, stream_options: { include_usage: true } },
            context
          })
          if (answer._tag === "Stream" && live !== undefined) {
            const streamed = yield* collect(answer.chunks, live)
            if (streamed.toolCalls.length > 0) {
              return { _tag: "ToolCalls", calls: streamed.toolCalls, usage: streamed.usage } as const
            }
            return {
              _tag: "Answered",
              text: streamed.text,
              announced: streamed.text !== "",
              finishReason: streamed.finishReason,
              usage: streamed.usage
            } as const
          }
          const completion = answer._tag === "Json" && answer.status === 200
            ? decodeCompletion(answer.body())
            : Option.none()
          if (Option.isNone(completion)) {
            return { _tag: "Failed", code: "server_error", message: `the provider answered ${answer.status}` } as const
          }
          const choice = completion.value.choices[0]
          const calls = choice?.message.tool_calls ?? []
          const reported = completion.value.usage
          const usage = reported === undefined || reported === null ? null : {
            prompt_tokens: reported.prompt_tokens,
            completion_tokens: reported.completion_tokens,
            total_tokens: reported.total_tokens
          }
          if (calls.length > 0) return { _tag: "ToolCalls", calls, usage } as const
          return {
            _tag: "Answered",
            text: choice?.message.content ?? "",
            announced: false,
            finishReason: choice?.finish_reason ?? null,
            usage
          } as const
        }).pipe(Effect.catch((error): Effect.Effect<Outcome> => Effect.succeed(failureOf(error))))

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
          const live = listeners.has(run.id) ? { begin: announce, delta } : undefined
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

      const start = (workspaceId: string, run: ThreadRun.ThreadRun, caller: Caller) =>
        FiberMap.run(running, run.id, execute(workspaceId, run, caller)).pipe(Effect.asVoid)

      const sweepWith = (ignoreLeases: boolean) =>
        Effect.gen(function*() {
          const now = yield* unix
          for (const { run, workspaceId } of yield* store.waitingRuns(now)) {
            yield* store.updateRun(workspaceId, { ...run, status: "expired", required_action: null }, null, {
              onlyIf: "requires_action"
            })
          }
          const taken = yield* store.takeAbandoned(now, now + LEASE_SECONDS, { ignoreLeases })
          for (const { workspaceId, run, caller } of taken) {
            if (run.status === "queued") {
              yield* start(workspaceId, run, caller)
            } else {
              yield* store.updateRun(
                workspaceId,
                {
                  ...run,
                  status: "failed",
                  failed_at: now,
                  last_error: {
                    code: "server_error",
                    message: "the gateway process running this run stopped before it ended; " +
                      "its call is not repeated, so the provider is not charged twice: start a new run"
                  }
                },
                null,
                { onlyIf: "in_progress" }
              )
            }
          }
        })

      const logged = (effect: Effect.Effect<void, GatewayError.InternalError>) =>
        Effect.catchCause(effect, (cause) => Effect.logError("assistants: sweep failed", Cause.pretty(cause)))
      // the first sweep ends before the layer is built, so it never sees a run this process made;
      // only it may ignore leases (on a database this process alone opens, every lease is a dead one's)
      yield* logged(sweepWith(options.soleProcess))
      const sweep = sweepWith(false)
      yield* Effect.forkScoped(
        logged(sweep).pipe(Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)), Effect.delay(SWEEP_INTERVAL))
      )

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
