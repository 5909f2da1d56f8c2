/**
 * Retries of one target's upstream calls (`retry` of the config): `attempts` more tries after the
 * first, with exponential backoff and full jitter, or the wait the provider asked for.
 *
 * What is retried:
 * - an `UpstreamStatus` whose status is in `on_status_codes` (default 429, 500, 502, 503, 504);
 * - always a connection error (`UpstreamUnreachable`) and a timeout (`UpstreamTimeout`), whatever
 *   the list says: the provider never answered, so there is no status to match;
 * - never the gateway's own errors (bad input, auth…) and never `TargetsUnavailable` (an open
 *   circuit: trying again at once cannot succeed; fallback moves on instead).
 *
 * The answer, and the final failure, carry `x-gateway-retry-attempt-count`: the retries made.
 */
import { type Dispatch, GatewayError, GatewayResponse, Stage } from "@switchyard/core"
import type { RetryConfig } from "@switchyard/protocol"
import { Clock, Duration, Effect, type Layer, Random, Schedule } from "effect"
import { requestedWait } from "./internal/RetryAfter.ts"

/** Response header: how many retries were made for the answer returned. */
export const ATTEMPT_COUNT_HEADER = "x-gateway-retry-attempt-count"

/** Statuses retried when `on_status_codes` is not set. */
export const DEFAULT_STATUS_CODES: ReadonlyArray<number> = [429, 500, 502, 503, 504]

/** The longest wait a provider's Retry-After headers may impose. */
export const MAX_REQUESTED_WAIT: Duration.Duration = Duration.seconds(60)

/** Exponential backoff: the n-th retry waits a random time in [0, min(max, base * 2^(n-1))). */
export interface Backoff {
  readonly base: Duration.Input
  readonly max: Duration.Input
}

export const defaultBackoff: Backoff = { base: Duration.millis(100), max: Duration.seconds(10) }

/** Whether an attempt's failure is worth another try, for the given retried statuses. */
export const isRetryable = (statusCodes: ReadonlyArray<number>) => {
  const retried = new Set(statusCodes)
  return (error: GatewayError.GatewayError): boolean =>
    error instanceof GatewayError.UpstreamStatus
      ? retried.has(error.status)
      : error instanceof GatewayError.UpstreamUnreachable || error instanceof GatewayError.UpstreamTimeout
}

/**
 * When to try again after a failed attempt: at most `attempts` times, only for retryable
 * failures, after a jittered exponential wait or, with `use_retry_after_headers`, the wait the
 * failed answer's headers ask for (capped at 60 s). Waits use Effect's Clock and Random.
 *
 * @example
 * import { GatewayError } from "@switchyard/core"
 * import { Retry } from "@switchyard/retry"
 * import { Effect } from "effect"
 * const call = Effect.fail(new GatewayError.UpstreamUnreachable({ provider: "openai", message: "reset" }))
 * const retried = Effect.retry(call, Retry.schedule({ attempts: 3 })) // 4 calls in all
 */
export const schedule = (
  config: RetryConfig.RetryConfig,
  backoff: Backoff = defaultBackoff
): Schedule.Schedule<Duration.Duration, GatewayError.GatewayError> => {
  const retryable = isRetryable(config.on_status_codes ?? DEFAULT_STATUS_CODES)
  const max = Duration.fromInputUnsafe(backoff.max)
  const honoursHeaders = config.use_retry_after_headers === true
  return Schedule.exponential(backoff.base, 2).pipe(
    Schedule.setInputType<GatewayError.GatewayError>(),
    Schedule.while(({ attempt, input }) => attempt <= config.attempts && retryable(input)),
    Schedule.modifyDelay(({ duration, input }) => {
      const jittered = Effect.map(
        Random.nextBetween(0, Duration.toMillis(Duration.min(duration, max))),
        (millis) => Duration.millis(Math.floor(millis))
      )
      if (!honoursHeaders || !(input instanceof GatewayError.UpstreamStatus)) return jittered
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const requested = requestedWait(input.headers, now)
        return requested === undefined
          ? jittered
          : Effect.succeed(Duration.min(Duration.millis(requested), MAX_REQUESTED_WAIT))
      })
    })
  )
}

const countHeaders = (retries: number): GatewayResponse.ResponseHeaders => ({ [ATTEMPT_COUNT_HEADER]: String(retries) })
const NO_RETRIES = countHeaders(0)

/** Labels an attempt's outcome with the retries made for it. */
const labelled = (
  attempt: Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError>,
  headers: () => GatewayResponse.ResponseHeaders
) =>
  Effect.mapBoth(attempt, {
    onSuccess: (response) => GatewayResponse.withHeaders(response, headers()),
    onFailure: (error) => GatewayError.withGatewayHeaders(error, headers())
  })

/**
 * Middleware retrying the wrapped Dispatch by {@link schedule}. With `attempts: 0` it only adds
 * the count header (`0`).
 *
 * @example
 * import { Dispatch } from "@switchyard/core"
 * import { Retry } from "@switchyard/retry"
 * const dispatch = Dispatch.compose(upstream, Retry.middleware({ attempts: 2, on_status_codes: [429] }))
 */
export const middleware = (
  config: RetryConfig.RetryConfig,
  backoff: Backoff = defaultBackoff
): Dispatch.Middleware => {
  if (config.attempts <= 0) return (next) => (request) => labelled(next(request), () => NO_RETRIES)
  const policy = schedule(config, backoff)
  return (next) => (request) =>
    Effect.suspend(() => {
      let calls = 0
      const attempt = Effect.suspend(() => {
        calls++
        return next(request)
      })
      return labelled(Effect.retry(attempt, policy), () => countHeaders(calls - 1))
    })
}

/** A {@link Stage.StageFactory} with the given backoff; the leaf's `retry` was decoded with its config. */
export const factoryWith = (backoff: Backoff): Stage.StageFactory => (target) =>
  Effect.succeed(middleware(target.retry ?? { attempts: 0 }, backoff))

/**
 * The per-target factory: each leaf retries by the `retry` it inherited; a leaf without one
 * answers with a count of 0.
 */
export const factory: Stage.StageFactory = factoryWith(defaultBackoff)

/**
 * Adds retry to the pipeline (phase `retry`, outside the circuit breaker and the timeout).
 *
 * @example
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Retry } from "@switchyard/retry"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(Layer.provide(Retry.stage), Layer.provide(Stage.Stages.layer))
 */
export const stage: Layer.Layer<never, Stage.StageConflict, Stage.Stages> = Stage.layer(
  Effect.succeed(Stage.make("retry", "retry", factory))
)
