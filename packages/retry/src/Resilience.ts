/**
 * The order of the per-target middleware, in one place: retry outermost, so that every attempt
 * gets its own timeout; whatever must see each attempt (the circuit breaker) sits between them.
 *
 *   Retry -> [between: circuit breaker] -> RequestTimeout -> provider
 *
 * With the breaker inside retry, every attempt counts towards its circuit, timeouts included, and
 * an open circuit stops the retries at once (`TargetsUnavailable` is not retried).
 */
import { TargetMiddleware } from "@switchyard/core"
import { Layer } from "effect"
import * as RequestTimeout from "./RequestTimeout.ts"
import * as Retry from "./Retry.ts"

/** Retry then timeout, the first outermost, with `between` in the middle. */
export const targetMiddlewareWith = (
  between: ReadonlyArray<TargetMiddleware.TargetMiddlewareFactory>
): ReadonlyArray<TargetMiddleware.TargetMiddlewareFactory> => [Retry.factory, ...between, RequestTimeout.factory]

/** Retry then timeout (first outermost), for core's `TargetMiddleware`. */
export const targetMiddleware: ReadonlyArray<TargetMiddleware.TargetMiddlewareFactory> = targetMiddlewareWith([])

/**
 * Provides core's `TargetMiddleware`; provide it to `ConfigCompiler.layer`, which compiles with
 * the references it was built with.
 *
 * @example
 * import { ConfigCompiler } from "@switchyard/core"
 * import { Resilience } from "@switchyard/retry"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(Layer.provide(Resilience.layer([breakerFactory])))
 */
export const layer = (
  between: ReadonlyArray<TargetMiddleware.TargetMiddlewareFactory> = []
): Layer.Layer<never> => Layer.succeed(TargetMiddleware.TargetMiddleware, targetMiddlewareWith(between))
