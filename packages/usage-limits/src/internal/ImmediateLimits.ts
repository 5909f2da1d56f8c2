import type { Dispatch, GatewayRequest, ProviderTarget } from "@switchyard/core"
import { Effect, Metric } from "effect"
import type * as LocalWindows from "../LocalWindows.ts"
import * as Metering from "../Metering.ts"
import * as RateLimits from "../RateLimits.ts"
import type { RatePolicy } from "../RatePolicies.ts"
import type { ImmediateCounters } from "../UsageCounters.ts"
import { UnpricedModel } from "../UsageLimitErrors.ts"
import type { UsagePolicy } from "../UsagePolicies.ts"
import { settledAnswer, withHeaders } from "./AnswerMetering.ts"
import { alerts, claimsOf, exceeded, factsOf, NOTHING, settlementsOf } from "./Claims.ts"
import { rateRefusals, refusals } from "./LimitMetrics.ts"

/** The counters and the rate windows when both are this process's own: the fast path's stores. */
export interface LocalStores {
  readonly counters: ImmediateCounters
  readonly windows: LocalWindows.LocalWindows
}

/**
 * The middleware's steps on stores in this process's memory (the embedded default), without an
 * effect per step: the same order, checks and answers as the effectful path, at about a fifth of
 * its cost (18 µs → 3 µs of CPU a request in process, one policy of each kind). `undefined` while
 * a counter has not been read from the database: the effectful path reads it, and later requests
 * come here.
 */
export const immediately = (
  target: ProviderTarget.ProviderTarget,
  request: GatewayRequest.GatewayRequest,
  next: Dispatch.Dispatch,
  active: ReadonlyArray<UsagePolicy>,
  rates: ReadonlyArray<RatePolicy>,
  local: LocalStores,
  now: number
): ReturnType<Dispatch.Dispatch> | undefined => {
  const facts = factsOf(target, request, target.provider)
  const planned = claimsOf(active, facts, undefined, request.endpoint, request.body, now)
  if (planned instanceof UnpricedModel) return Effect.fail(planned)
  const { bound, claims } = planned
  const reserved = claims.length === 0 ? undefined : local.counters.reserve(claims.map((claim) => claim.reservation))
  if (claims.length > 0 && reserved === undefined) return undefined
  const admission = RateLimits.admitNow(rates, facts, request.context, local.windows, now)
  if (admission instanceof RateLimits.RateLimited) {
    // refused by a rate limit: what the usage limits took is given back
    if (reserved?._tag === "Admitted") local.counters.settle(settlementsOf(claims, NOTHING))
    return Effect.andThen(Metric.update(rateRefusals, 1), Effect.fail(admission))
  }
  if (reserved?._tag === "Refused") {
    const refused = claims[reserved.index]
    if (refused !== undefined) return Effect.andThen(Metric.update(refusals, 1), Effect.fail(exceeded(refused)))
  }
  if (claims.length === 0 && !admission.countsTokens) {
    return Effect.map(next(request), (response) => withHeaders(response, admission.headers))
  }
  const settle = (used: Metering.Tokens): Effect.Effect<void> =>
    Effect.clockWith((clock) => {
      const crossed = claims.length === 0 ? [] : local.counters.settle(settlementsOf(claims, used))
      admission.addTokensAt(Metering.totalOf(used), clock.currentTimeMillisUnsafe())
      return crossed.length === 0 ? Effect.void : alerts(claims, crossed)
    })
  return settledAnswer(next, request, bound, admission.headers, settle)
}
