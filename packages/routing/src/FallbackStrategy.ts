/**
 * `fallback`: targets are tried in order. The next one is tried when a target fails with an
 * upstream status in `strategy.on_status_codes` (by default: every upstream failure, i.e. a provider
 * status >= 400, an unreachable provider (502) or a timeout (408)); a target whose circuit is open
 * is always skipped. The gateway's own errors (bad input and the like) fail at once. When every
 * target fails, the last failure is the answer; when every target is open, `TargetsUnavailable`.
 *
 * Streams: a target answers with a stream once its provider has accepted the request, so a
 * request falls back only before its stream began; a failure inside the stream ends that stream
 * and is not caught here.
 */
import { type Dispatch, GatewayError, type GatewayRequest, type GatewayResponse, type Strategy } from "@switchyard/core"
import { Effect } from "effect"
import { allOpen, labelFailures, noTargets } from "./internal/TargetFailure.ts"

/**
 * Whether a failure moves a fallback on to its next target: with `onStatusCodes`, when the
 * failure's upstream status is listed; without, on any upstream failure with a status >= 400.
 *
 * @example
 * import { GatewayError } from "@switchyard/core"
 * import { FallbackStrategy } from "@switchyard/routing"
 * const tooMany = new GatewayError.UpstreamStatus({ provider: "openai", status: 429, body: null, headers: {} })
 * FallbackStrategy.fallsBackOn([500, 503])(tooMany) // false
 * FallbackStrategy.fallsBackOn(undefined)(tooMany) // true
 */
export const fallsBackOn = (
  onStatusCodes: ReadonlyArray<number> | undefined
): (error: GatewayError.GatewayError) => boolean => {
  if (onStatusCodes === undefined) {
    return (error) => (GatewayError.upstreamStatusOf(error) ?? 0) >= 400
  }
  const codes = new Set(onStatusCodes)
  return (error) => {
    const status = GatewayError.upstreamStatusOf(error)
    return status !== undefined && codes.has(status)
  }
}

/**
 * @example
 * import { ConfigCompiler, Strategy } from "@switchyard/core"
 * import { FallbackStrategy } from "@switchyard/routing"
 * import { Effect } from "effect"
 * const config = {
 *   strategy: { mode: "fallback" as const, on_status_codes: [429, 503] },
 *   targets: [{ provider: "openai", api_key: "sk-1" }, { provider: "anthropic", api_key: "sk-2" }]
 * }
 * const dispatch = ConfigCompiler.compile(config).pipe(
 *   Effect.provideService(Strategy.Strategies, { fallback: FallbackStrategy.fallback })
 * ) // needs a ProviderRegistry; anthropic answers when openai says 429 or 503
 */
export const fallback: Strategy.StrategyCompiler = (strategy, targets, path) => {
  if (targets.length === 0) return Effect.fail(noTargets(path))
  const dispatches = targets.map(labelFailures)
  const movesOn = fallsBackOn(strategy.on_status_codes)

  const attempt = (
    request: GatewayRequest.GatewayRequest,
    index: number,
    lastFailure: GatewayError.GatewayError | undefined
  ): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> => {
    const dispatch: Dispatch.Dispatch<never> | undefined = dispatches[index]
    if (dispatch === undefined) return Effect.die(new Error(`${path}: fallback ran past its last target`))
    const isLast = index + 1 === dispatches.length
    return Effect.catch(dispatch(request), (error) => {
      if (error instanceof GatewayError.TargetsUnavailable) {
        // an open circuit is no answer: skip it, and keep the last real failure to return
        return isLast ? Effect.fail(lastFailure ?? allOpen(path, error)) : attempt(request, index + 1, lastFailure)
      }
      if (isLast || !movesOn(error)) return Effect.fail(error)
      return attempt(request, index + 1, error)
    })
  }

  return Effect.succeed((request) => attempt(request, 0, undefined))
}
