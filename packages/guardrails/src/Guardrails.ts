/**
 * The middleware running a target's `before_request_hooks` and `input_guardrails` before the
 * provider, and its `after_request_hooks` and `output_guardrails` after it. A denying failure
 * before the provider means the provider is never called; after it, the answer is replaced by
 * the 446 error. Otherwise the JSON answer carries `hook_results`.
 *
 * Streams: output checks judge the whole answer, so they run when the stream has completed.
 * When an output hook may deny (or is a mutator), the stream is held back until the verdict and
 * then sent (rewritten, if a mutator rewrote it); otherwise chunks flow as they come and the
 * results are only recorded (feedback, logs).
 */
import {
  type Dispatch,
  type Endpoint,
  GatewayError,
  GatewayRequest,
  GatewayResponse,
  type ProviderTarget,
  RequestNotes,
  Stage,
  TrustedHosts
} from "@switchyard/core"
import { Effect, type Layer, Option, Result, Stream } from "effect"
import * as Check from "./Check.ts"
import * as DefaultPlugin from "./DefaultPlugin.ts"
import { FeedbackStore } from "./Feedback.ts"
import { HookDenied } from "./HookDenied.ts"
import { type HookOutcome, type HookResults, withoutAnswerData } from "./HookResults.ts"
import {
  type Hook,
  isEmpty,
  type Plan,
  type PlanItem,
  planOf,
  type Registry,
  type StoredGuardrail,
  storedHook
} from "./internal/HookPlan.ts"
import { runHooks } from "./internal/HookRunner.ts"
import * as Texts from "./internal/Texts.ts"

export type { StoredGuardrail } from "./internal/HookPlan.ts"

/** Fetches a stored guardrail of a workspace (`/v1/guardrails`); `None` when there is none. */
export type Resolver = (workspaceId: string, id: string) => Effect.Effect<Option.Option<StoredGuardrail>>

export interface Options {
  /** Checks besides the `default` plugin's (a later check with the same id wins). */
  readonly checks?: ReadonlyArray<Check.Check> | undefined
  /** Storage of named guardrails; without one, a string item is a 400. */
  readonly resolve?: Resolver | undefined
}

/** A Dispatch that may also fail with {@link HookDenied}. */
export type GuardedDispatch = (
  request: GatewayRequest.GatewayRequest
) => Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError | HookDenied>

type Guard = (next: Dispatch.Dispatch) => GuardedDispatch

interface Runtime {
  readonly registry: Registry
  readonly resolve: Resolver | undefined
  readonly feedback: FeedbackStore["Service"]
}

const REQUEST_TYPES: Readonly<Record<Endpoint.Endpoint, Check.RequestType>> = {
  "chat.completions": "chatComplete",
  completions: "complete",
  embeddings: "embed"
}

const contextOf = (
  request: GatewayRequest.GatewayRequest,
  body: GatewayRequest.JsonObject,
  answer: { readonly body: unknown; readonly status: number } | undefined
): Check.CheckContext => ({
  eventType: answer === undefined ? "beforeRequestHook" : "afterRequestHook",
  requestType: REQUEST_TYPES[request.endpoint],
  request: { body, text: Texts.requestText(request.endpoint, body), stream: request.stream },
  response: answer === undefined ? undefined : { ...answer, text: Texts.responseText(answer.body) },
  metadata: request.context.metadata,
  headers: request.context.headers,
  traceId: request.context.traceId,
  workspaceId: request.context.principal.workspaceId
})

/** Fetches the stored guardrails a plan names; an unknown id is a 400. */
const resolveItems = (runtime: Runtime, items: ReadonlyArray<PlanItem>, workspaceId: string) =>
  Effect.forEach(items, (item): Effect.Effect<Hook, GatewayError.InvalidRequest> => {
    if (item._tag === "Hook") return Effect.succeed(item.hook)
    const unknown = new GatewayError.InvalidRequest({
      message: `${item.path}: no guardrail "${item.id}"`,
      param: item.path
    })
    if (runtime.resolve === undefined) return Effect.fail(unknown)
    return Effect.flatMap(runtime.resolve(workspaceId, item.id), (found) => {
      if (Option.isNone(found)) return Effect.fail(unknown)
      const hook = storedHook(runtime.registry, found.value, item.path)
      return Result.isSuccess(hook) ? Effect.succeed(hook.success) : Effect.fail(hook.failure)
    })
  })

const canHoldBack = (hooks: ReadonlyArray<Hook>): boolean =>
  hooks.some((hook) => !hook.async && (hook.onFail.deny || hook.onSuccess.deny || hook.type === "mutator"))

/** The JSON answer with `hook_results` added; its bytes are no longer the provider's. */
const withResults = (response: GatewayResponse.JsonResponse, body: unknown, results: HookResults) =>
  GatewayRequest.isJsonObject(body)
    ? response.withBody({ ...body, hook_results: results })
    : response

/** The results as the request log keeps them (no check `data`), noted on the request when it has notes. */
const noteOutcomes = (
  notes: RequestNotes.RequestNotes | undefined,
  stage: "before" | "after",
  path: string,
  outcomes: ReadonlyArray<HookOutcome>
): void => {
  if (notes === undefined) return
  RequestNotes.noteHooks(
    notes,
    outcomes.map((outcome) => ({
      id: outcome.id,
      stage,
      target_path: path,
      type: outcome.type,
      verdict: outcome.verdict,
      deny: outcome.deny,
      execution_time: outcome.execution_time,
      checks: outcome.checks.map((check) => ({
        id: check.id,
        verdict: check.verdict,
        explanation: check.explanation,
        ...(check.error === undefined ? {} : { error: check.error }),
        execution_time: check.execution_time
      }))
    }))
  )
}

const guarded = (runtime: Runtime, plan: Plan, path: string): Guard => (next) => (request) =>
  Effect.gen(function*() {
    const workspaceId = request.context.principal.workspaceId
    const notes = request.context.notes
    // the request's record reads the results when it is written: a stream's checks may end after it
    if (notes !== undefined) RequestNotes.expectHooks(notes)
    const beforeHooks = yield* resolveItems(runtime, plan.before, workspaceId)
    const afterHooks = yield* resolveItems(runtime, plan.after, workspaceId)
    const before = yield* runHooks(
      beforeHooks,
      request.body,
      (body) => contextOf(request, body, undefined),
      (body, rewrite) => Texts.rewriteRequest(request.endpoint, body, rewrite),
      runtime.feedback
    )
    noteOutcomes(notes, "before", path, before.outcomes)
    const results = (after: ReadonlyArray<HookOutcome>): HookResults => ({
      before_request_hooks: before.outcomes,
      after_request_hooks: after
    })
    if (before.denied) return yield* new HookDenied({ stage: "before", hookResults: results([]) })
    const sent = GatewayRequest.withBody(request, before.value)
    const response = yield* next(sent)
    const judge = (body: unknown, status: number) =>
      runHooks(
        afterHooks,
        body,
        (answer) => contextOf(sent, sent.body, { body: answer, status }),
        Texts.rewriteResponse,
        runtime.feedback
      ).pipe(Effect.tap((after) => Effect.sync(() => noteOutcomes(notes, "after", path, after.outcomes))))

    if (response._tag === "Json") {
      const after = yield* judge(response.body(), response.status)
      if (after.denied) {
        return yield* new HookDenied({ stage: "after", hookResults: withoutAnswerData(results(after.outcomes)) })
      }
      return withResults(response, after.value, results(after.outcomes))
    }
    if (afterHooks.length === 0) return response
    if (canHoldBack(afterHooks)) {
      // the verdict needs the whole answer, and a denied answer must not have begun: hold it back
      const chunks = yield* Stream.runCollect(response.chunks)
      const assembled = Texts.assemble(chunks)
      const after = yield* judge(assembled, response.status)
      if (after.denied) {
        return yield* new HookDenied({ stage: "after", hookResults: withoutAnswerData(results(after.outcomes)) })
      }
      const rewritten = after.value === assembled || !GatewayRequest.isJsonObject(after.value)
        ? chunks
        : Texts.rewriteChunks(chunks, after.value)
      return { ...response, chunks: Stream.fromIterable(rewritten) }
    }
    // nothing can deny or rewrite: chunks flow, and the checks judge the answer once it is complete
    const seen: Array<GatewayRequest.JsonObject> = []
    const chunks = response.chunks.pipe(
      Stream.tap((chunk) => Effect.sync(() => seen.push(chunk))),
      Stream.onEnd(
        Effect.asVoid(Effect.forkDetach(Effect.suspend(() => judge(Texts.assemble(seen), response.status))))
      )
    )
    return { ...response, chunks }
  })

/**
 * The middleware for one target's plan (at config `path`), with denial typed as
 * {@link HookDenied}. Each hook's result is noted on the request's `notes` for its record.
 *
 * @example
 * import { Guardrails } from "@switchyard/guardrails"
 * const guarded = Guardrails.middleware(runtime, plan)(upstream)
 */
export const middleware = (
  runtime: Runtime,
  plan: Plan,
  path = "config"
): Guard => isEmpty(plan) ? (next) => next : guarded(runtime, plan, path)

/** The checks by id: the `default` plugin's, then `extra` (later ones win). */
export const registryOf = (extra: ReadonlyArray<Check.Check> = []): Registry =>
  new Map([...DefaultPlugin.checks, ...extra].map((check) => [check.id, check]))

/**
 * The per-target factory: input checks run once per target and output checks see the final
 * answer (cached ones too). A denial is {@link HookDenied} (446 on the wire).
 */
export const make = (
  options: Options = {}
): Effect.Effect<Stage.StageFactory, never, FeedbackStore> =>
  Effect.gen(function*() {
    const feedback = yield* FeedbackStore
    const hosts = yield* TrustedHosts.TrustedHosts
    const runtime: Runtime = {
      registry: underHosts(registryOf(options.checks), hosts),
      resolve: options.resolve,
      feedback
    }
    return (target: ProviderTarget.ProviderTarget, path: string) =>
      Effect.map(planOf(runtime.registry, target, path), (plan) => middleware(runtime, plan, path))
  })

/**
 * Adds hooks and guardrails to the pipeline (phase `guardrails`, outermost). `options` may need
 * services of its own (a resolver of stored guardrails); they stay in the layer's type.
 *
 * @example
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Feedback, Guardrails } from "@switchyard/guardrails"
 * import { Effect, Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
 *   Layer.provide(Guardrails.stage(Effect.succeed({}))),
 *   Layer.provide([Stage.Stages.layer, Feedback.FeedbackStore.layerMemory])
 * )
 */
export const stage = <E, R>(
  options: Effect.Effect<Options, E, R>
): Layer.Layer<never, E | Stage.StageConflict, R | FeedbackStore | Stage.Stages> =>
  Stage.layer(
    Effect.flatMap(options, (resolved) =>
      Effect.map(make(resolved), (guardrails) => Stage.make("guardrails", "guardrails", guardrails)))
  )

/**
 * Checks that call out (webhook, log, jwt) read `TrustedHosts` from context: every check runs
 * under the policy the factory was built with, also when it judges a stream after it has ended.
 */
const underHosts = (registry: Registry, hosts: TrustedHosts.TrustedHosts): Registry =>
  new Map([...registry].map(([id, check]) => [id, {
    id: check.id,
    prepare: (parameters: unknown) =>
      Result.map(
        check.prepare(parameters),
        (run) => (context: Check.CheckContext) => Effect.provideService(run(context), TrustedHosts.TrustedHosts, hosts)
      )
  }]))
