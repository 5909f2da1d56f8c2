/**
 * The `request_timeout` of a target (milliseconds; from the config or `x-gateway-request-timeout`)
 * bounds each upstream attempt. A JSON answer must be read whole within it; a stream must have
 * begun (the provider answered with its status and headers), after which chunks may take as long
 * as they take. On expiry the attempt is interrupted, which aborts the upstream call and frees
 * its socket, and the attempt fails with `UpstreamTimeout` (408).
 */
import { type Dispatch, GatewayError, Stage } from "@switchyard/core"
import { Duration, Effect, type Layer } from "effect"

/**
 * Middleware failing an attempt that outlasts `timeoutMs` on Effect's Clock.
 *
 * @example
 * import { Dispatch } from "@switchyard/core"
 * import { RequestTimeout } from "@switchyard/retry"
 * const dispatch = Dispatch.compose(upstream, RequestTimeout.middleware("openai", 30_000))
 */
export const middleware = (provider: string, timeoutMs: number): Dispatch.Middleware => {
  const duration = Duration.millis(timeoutMs)
  const orElse = () => Effect.fail(new GatewayError.UpstreamTimeout({ provider, timeoutMs }))
  return (next) => (request) => Effect.timeoutOrElse(next(request), { duration, orElse })
}

const unbounded: Dispatch.Middleware = (next) => next

/**
 * The per-target factory: a leaf with a `request_timeout` gets {@link middleware}; a leaf without
 * one is left as it is. The value was checked once, where the config (or the
 * `x-gateway-request-timeout` header) was decoded.
 */
export const factory: Stage.StageFactory = (target) =>
  Effect.succeed(target.request_timeout === undefined ? unbounded : middleware(target.provider, target.request_timeout))

/** Adds the request timeout to the pipeline (phase `timeout`, innermost: it bounds one attempt). */
export const stage: Layer.Layer<never, Stage.StageConflict, Stage.Stages> = Stage.layer(
  Effect.succeed(Stage.make("timeout", "request-timeout", factory))
)
