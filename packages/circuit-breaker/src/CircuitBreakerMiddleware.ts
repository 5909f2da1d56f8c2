/**
 * The `cb_config` of a target as a pipeline stage (phase `circuit-breaker`): each upstream attempt runs through the
 * target's circuit of an effect/persistence `CircuitBreaker`. While the circuit is open, attempts
 * fail at once with `TargetsUnavailable` (503), which routing skips; after `cooldown_interval` one
 * probe is let through, and its outcome closes or reopens the circuit.
 *
 * It belongs between retry (outside, so every attempt counts) and the request timeout (inside,
 * so a timed-out attempt counts as a failure).
 */
import { type Dispatch, GatewayError, type GatewayResponse, Stage } from "@switchyard/core"
import type { CircuitBreakerConfig } from "@switchyard/protocol"
import { Cause, Duration, Effect, Exit, Layer, Option, Scope } from "effect"
import { CircuitBreaker } from "effect/persistence"
import * as CircuitKey from "./CircuitKey.ts"

/** A target's decoded `cb_config`. */
export type Settings = CircuitBreakerConfig.CircuitBreakerConfig

/**
 * Whether one attempt counts against its target. Connection errors and timeouts always count;
 * upstream statuses count when listed in `failure_status_codes` (default: every status >= 500),
 * and other upstream answers count as successes. The gateway's own errors (bad input, its own
 * faults, a nested circuit's rejection) say nothing about the upstream and are ignored.
 */
export const classify = (settings: Settings) => {
  const listed = settings.failure_status_codes
  const counts = listed === undefined ? (status: number) => status >= 500 : (status: number) => listed.includes(status)
  return (exit: Exit.Exit<GatewayResponse.GatewayResponse, GatewayError.GatewayError>): CircuitBreaker.Outcome => {
    if (Exit.isSuccess(exit)) return counts(exit.value.status) ? CircuitBreaker.failure() : CircuitBreaker.success
    const error = Cause.findErrorOption(exit.cause)
    if (Option.isNone(error)) return CircuitBreaker.ignored
    switch (error.value._tag) {
      case "UpstreamUnreachable":
      case "UpstreamTimeout":
        return CircuitBreaker.failure()
      case "TargetsUnavailable":
        return CircuitBreaker.ignored
      default: {
        const status = GatewayError.upstreamStatusOf(error.value)
        if (status === undefined) return CircuitBreaker.ignored
        return counts(status) ? CircuitBreaker.failure() : CircuitBreaker.success
      }
    }
  }
}

/**
 * Middleware that runs each attempt through `breaker` under `key`, and answers a rejection by
 * the circuit with `TargetsUnavailable` naming `provider`.
 */
export const make = (
  breaker: CircuitBreaker.CircuitBreaker,
  options: { readonly key: string; readonly provider: string; readonly settings: Settings }
): Dispatch.Middleware => {
  const execute = breaker.execute({ key: options.key, classify: classify(options.settings) })
  return (next) => (request) =>
    next(request).pipe(
      execute,
      Effect.catchIf(
        (error) => error instanceof CircuitBreaker.CircuitBreakerError,
        (error) => Effect.fail(rejection(options.provider, error))
      )
    )
}

const rejection = (provider: string, error: CircuitBreaker.CircuitBreakerError): GatewayError.GatewayError =>
  error.reason._tag === "CircuitBreakerStoreError"
    ? new GatewayError.InternalError({ message: `circuit store: ${error.reason.message}` })
    : new GatewayError.TargetsUnavailable({ message: `${provider}: circuit open` })

/**
 * The per-target factory: a target without `cb_config` gets no middleware; one with it gets
 * {@link make} over a breaker with its policy, keyed by {@link CircuitKey.of}.
 */
export const factory: Effect.Effect<Stage.StageFactory, never, CircuitBreaker.CircuitBreakerStore> = Effect.gen(
  function*() {
    const store = yield* CircuitBreaker.CircuitBreakerStore
    return (target) => {
      // decoded with its config: the stage reads it as it is
      const settings = target.cb_config
      if (settings === undefined) return Effect.succeed(identity)
      return Effect.map(
        CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(settings.failure_threshold),
          openDuration: Duration.millis(settings.cooldown_interval)
        }).pipe(
          Effect.provideService(CircuitBreaker.CircuitBreakerStore, store),
          // the breaker's scope only ends its `transitions` stream: it lives as long as the
          // compiled target holding it, and is collected with it
          Effect.provideService(Scope.Scope, Scope.makeUnsafe())
        ),
        (breaker) => make(breaker, { key: CircuitKey.of(target), provider: target.provider, settings })
      )
    }
  }
)

const identity: Dispatch.Middleware = (next) => next

/**
 * Adds the circuit breaker to the pipeline (phase `circuit-breaker`, inside retry: every attempt
 * counts). Its store (memory here, Redis from `@switchyard/circuit-breaker/redis`) stays in the
 * layer's type.
 *
 * @example
 * import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
 *   Layer.provide(CircuitBreakerMiddleware.stage),
 *   Layer.provide([Stage.Stages.layer, CircuitBreakerMiddleware.layerMemory])
 * )
 */
export const stage: Layer.Layer<never, Stage.StageConflict, CircuitBreaker.CircuitBreakerStore | Stage.Stages> = Stage
  .layer(Effect.map(factory, (circuit) => Stage.make("circuit-breaker", "circuit-breaker", circuit)))

/** Circuits in this process only: each replica has its own. */
export const layerMemory: Layer.Layer<CircuitBreaker.CircuitBreakerStore> = CircuitBreaker.layerStoreMemory()
