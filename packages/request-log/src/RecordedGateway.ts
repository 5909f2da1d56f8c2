/**
 * The gateway pipeline for calls made in process (prompt completions, assistant runs, batch
 * lines), recording each call in the request log as it ends: a JSON answer when it arrives, a
 * stream when it ends (its first chunk timed, its usage chunk read), a failure with the status it
 * answers. The HTTP inference routes record at the edge instead, where the status the client got
 * is known; they keep the undecorated gateway. When the `GatewayMetrics` of
 * `@switchyard/observability` are in context as the layer is built, each call also adds its cost
 * (`gateway_cost_usd_total`) and its tokens (`gen_ai_client_token_usage`), as the edge does for
 * HTTP calls, so a batch or a thread's spend shows in the metrics too.
 *
 * @example
 * import { RecordedGateway } from "@switchyard/request-log"
 * // the runs' pipeline records each call under "assistant run"
 * // assistants.pipe(Layer.provide(RecordedGateway.layer("assistant run")))
 */
import { Endpoint, Gateway, GatewayError, type GatewayResponse } from "@switchyard/core"
import { GatewayMetrics } from "@switchyard/observability"
import { Cause, Effect, Exit, Layer, Option, Stream } from "effect"
import * as AnswerFacts from "./AnswerFacts.ts"
import type { Entry } from "./LogRecord.ts"
import { MAX_BODY_CHARS } from "./LogRecord.ts"
import { RequestLog } from "./RequestLog.ts"

/** A decorated `Gateway` over the one in context; `route` names where the calls come from. */
export const layer = (route: string): Layer.Layer<Gateway.Gateway, never, Gateway.Gateway | RequestLog> =>
  Layer.effect(
    Gateway.Gateway,
    Effect.gen(function*() {
      const inner = yield* Gateway.Gateway
      const log = yield* RequestLog
      // optional: an embedder that keeps no metrics still gets its calls logged
      const metrics = Option.getOrUndefined(yield* Effect.serviceOption(GatewayMetrics.GatewayMetrics))
      const recorder: Recorder = { route, log, metrics }
      return Gateway.Gateway.of({
        handle: (input) => {
          // notes of this call alone: a run or a batch may make several calls under one context
          const noted = { ...input, context: { ...input.context, notes: {} } }
          return recorded(recorder, noted, inner.handle(noted))
        }
      })
    })
  )

/** Where a call's record goes: the log under `route`, and the metrics when there are some. */
interface Recorder {
  readonly route: string
  readonly log: RequestLog["Service"]
  readonly metrics: GatewayMetrics.GatewayMetrics["Service"] | undefined
}

type Facts = Omit<Entry, "status" | "latencyMs" | "firstTokenMs" | "usage" | "costUsd" | "responseBody">

const factsOf = (
  { log, route }: Recorder,
  input: Gateway.GatewayInput,
  headers: Readonly<Record<string, string>>
): Facts => {
  const model = input.body.model
  const context = input.context
  return {
    traceId: context.traceId,
    workspaceId: context.principal.workspaceId,
    apiKeyId: context.principal.keyId,
    receivedAt: context.receivedAt,
    route,
    endpoint: input.endpoint,
    stream: input.body.stream === true,
    provider: headers[AnswerFacts.Headers.provider],
    model: typeof model === "string" ? model : undefined,
    targetPath: headers[AnswerFacts.Headers.targetPath],
    cacheStatus: headers[AnswerFacts.Headers.cacheStatus],
    retries: AnswerFacts.retriesOf(headers[AnswerFacts.Headers.retries]),
    metadata: context.metadata,
    notes: context.notes,
    ...(log.bodies ? { requestBody: input.body } : {})
  }
}

const finish = (
  { log, metrics }: Recorder,
  facts: Facts,
  started: number,
  ended: {
    readonly status: number
    readonly usage?: AnswerFacts.Usage | undefined
    readonly firstChunkAt?: number | undefined
    readonly responseBody?: unknown
  }
) => {
  const costUsd = AnswerFacts.costOf(facts.provider, facts.model, ended.usage, facts.cacheStatus)
  if (metrics !== undefined) countSpend(metrics, facts, ended.usage, costUsd)
  log.record({
    ...facts,
    status: ended.status,
    latencyMs: performance.now() - started,
    firstTokenMs: ended.firstChunkAt === undefined ? undefined : ended.firstChunkAt - started,
    usage: ended.usage,
    costUsd,
    ...(log.bodies && ended.responseBody !== undefined ? { responseBody: ended.responseBody } : {})
  })
}

/** The call's cost and tokens in the metrics, counted as the edge counts an HTTP call's (none for a cache hit). */
const countSpend = (
  metrics: GatewayMetrics.GatewayMetrics["Service"],
  facts: Facts,
  usage: AnswerFacts.Usage | undefined,
  costUsd: number | undefined
) => {
  const { endpoint, provider } = facts
  if (provider === undefined) return
  const model = facts.model ?? ""
  if (costUsd !== undefined && costUsd > 0) metrics.cost(provider, model, costUsd)
  if (usage !== undefined && endpoint !== undefined && !AnswerFacts.isCacheHit(facts.cacheStatus)) {
    metrics.tokens({ operation: Endpoint.operationNames[endpoint], provider, model }, usage)
  }
}

/** The status a failure answers, or 499 for a call that was stopped (the caller went away). */
const failureStatus = (
  cause: Cause.Cause<GatewayError.GatewayError>
): { status: number; headers: Record<string, string> } => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") {
    const answer = GatewayError.toHttp(error.value)
    return { status: answer.status, headers: answer.headers }
  }
  return { status: Cause.hasInterruptsOnly(cause) ? 499 : 500, headers: {} }
}

const recorded = (
  recorder: Recorder,
  input: Gateway.GatewayInput,
  call: Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError>
): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> => {
  const started = performance.now()
  return call.pipe(
    Effect.onExit((exit) =>
      Effect.sync(() => {
        if (Exit.isSuccess(exit)) {
          const answer = exit.value
          if (answer._tag === "Json") {
            finish(recorder, factsOf(recorder, input, answer.headers), started, {
              status: answer.status,
              usage: AnswerFacts.usageOf(answer.body()),
              responseBody: recorder.log.bodies ? answer.body() : undefined
            })
          }
          return
        }
        const failure = failureStatus(exit.cause)
        finish(recorder, factsOf(recorder, input, failure.headers), started, { status: failure.status })
      })
    ),
    Effect.map((answer) => answer._tag === "Json" ? answer : recordedStream(recorder, input, answer, started))
  )
}

/** The stream, recorded when it ends: complete, failed half-way, or stopped by its reader. */
const recordedStream = (
  recorder: Recorder,
  input: Gateway.GatewayInput,
  answer: GatewayResponse.StreamResponse,
  started: number
): GatewayResponse.StreamResponse => {
  let firstChunkAt: number | undefined
  let usage: AnswerFacts.Usage | undefined
  const chunks: Array<unknown> = []
  let bodyChars = 0
  const bodies = recorder.log.bodies
  const noted = answer.chunks.pipe(
    Stream.map((chunk) => {
      firstChunkAt ??= performance.now()
      usage = AnswerFacts.usageOf(chunk) ?? usage
      if (bodies && bodyChars <= MAX_BODY_CHARS) {
        bodyChars += JSON.stringify(chunk).length
        chunks.push(chunk)
      }
      return chunk
    }),
    Stream.onExit((exit) =>
      Effect.sync(() => {
        const status = Exit.isSuccess(exit) ? answer.status : failureStatus(exit.cause).status
        finish(recorder, factsOf(recorder, input, answer.headers), started, {
          status,
          usage,
          firstChunkAt,
          responseBody: bodies ? chunks : undefined
        })
      })
    )
  )
  return { ...answer, chunks: noted }
}
