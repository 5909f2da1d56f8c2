/**
 * The stage's middleware on any stores (the effectful path): the stored provider of an `@slug`
 * target, rate windows and usage counters asked at once, then the answer metered. Stores in this
 * process's memory take the fast path of `ImmediateLimits` instead, once their counters are read.
 */
import { Dispatch, GatewayError, type GatewayRequest, type ProviderTarget } from "@switchyard/core"
import { Effect, Metric, Result } from "effect"
import type { RateLimiter } from "effect/persistence"
import * as Metering from "../Metering.ts"
import * as RateLimits from "../RateLimits.ts"
import type { RatePolicies, RatePolicy } from "../RatePolicies.ts"
import type * as StoredProviders from "../StoredProviders.ts"
import type { CounterStoreError, ReserveResult, UsageCounters } from "../UsageCounters.ts"
import { UnpricedModel } from "../UsageLimitErrors.ts"
import type { OnStoreError } from "../UsageLimits.ts"
import type { UsagePolicies, UsagePolicy } from "../UsagePolicies.ts"
import { settledAnswer, withHeaders } from "./AnswerMetering.ts"
import { claimsOf, exceeded, factsOf, NOTHING, settleAll } from "./Claims.ts"
import { immediately, type LocalStores } from "./ImmediateLimits.ts"
import { rateRefusals, refusals, storeMisses } from "./LimitMetrics.ts"

/** What the usage counters answered a request's reservations; not counted when there were none, or the store was out (`open`). */
type Reserved =
  | { readonly counted: false }
  | { readonly counted: true; readonly result: ReserveResult }

const NOT_COUNTED: Reserved = { counted: false }

type Planned = Exclude<ReturnType<typeof claimsOf>, UnpricedModel>

/** What the stage reads its policies and counts from. */
export interface Services {
  readonly policies: UsagePolicies["Service"]
  readonly counters: UsageCounters["Service"]
  readonly rates: RatePolicies["Service"]
  readonly limiter: RateLimiter.RateLimiter
  readonly windows: RateLimiter.RateLimiterStore["Service"]
  readonly onStoreError: OnStoreError
  readonly storedProviders: StoredProviders.Resolver
  /** Set when the counters and the windows are this process's own: the fast path's stores. */
  readonly local: LocalStores | undefined
}

/** The stage's middleware for one leaf: rate limits first (a refused request reserves nothing), then usage limits. */
export const middleware =
  (target: ProviderTarget.ProviderTarget, services: Services): Dispatch.Middleware => (next) => {
    const { counters, onStoreError } = services
    /** The request under the workspace's active policies, once they are read. */
    const limited = (
      request: GatewayRequest.GatewayRequest,
      active: ReadonlyArray<UsagePolicy>,
      rates: ReadonlyArray<RatePolicy>,
      now: number
    ): ReturnType<Dispatch.Dispatch> => {
      // the common case, no policy in the workspace, costs two map lookups
      if (active.length === 0 && rates.length === 0) return next(request)
      const local = services.local
      // an `@slug` target's provider and prices are read from the store: the effectful way
      if (local !== undefined && !target.provider.startsWith("@")) {
        const answer = immediately(target, request, next, active, rates, local, now)
        if (answer !== undefined) return answer
      }
      const workspaceId = request.context.principal.workspaceId
      const stored = target.provider.startsWith("@")
        ? services.storedProviders.resolve(workspaceId, target)
        : Effect.succeed(undefined)
      // chains rather than a generator: one suspended across the store's round trip and the provider's
      // answer outlives young-generation GCs (in Redis mode, most of the GC helpers' time)
      return Effect.flatMap(stored, (stored) => {
        const facts = factsOf(target, request, stored?.provider ?? target.provider, stored?.virtualKeyId)
        const planned = claimsOf(active, facts, stored?.price, request.endpoint, request.body, now)
        if (planned instanceof UnpricedModel) return Effect.fail(planned)
        const { claims } = planned
        const admit = rates.length === 0
          ? Effect.succeed(RateLimits.nothing)
          : RateLimits.admit(rates, facts, request.context, services.limiter, services.windows).pipe(
            Effect.tapError((error) => error._tag === "RateLimited" ? Metric.update(rateRefusals, 1) : Effect.void),
            Effect.catchTag(
              "WindowStoreError",
              (error) => Effect.as(storeUnreachable(error, onStoreError), RateLimits.nothing)
            )
          )
        const reserve = claims.length === 0
          ? Effect.succeed(NOT_COUNTED)
          : counters.reserve(claims.map((claim) => claim.reservation)).pipe(
            Effect.map((result): Reserved => ({ counted: true, result })),
            Effect.catchTag(
              "CounterStoreError",
              (error) => Effect.as(storeUnreachable(error, onStoreError), NOT_COUNTED)
            )
          )
        // both stores are asked at once: with Redis, one round trip instead of two
        const asked = Effect.all([Effect.result(admit), reserve], {
          concurrency: rates.length > 0 && claims.length > 0 ? 2 : 1
        })
        return Effect.flatMap(asked, ([admitted, reserved]) => {
          if (Result.isFailure(admitted)) {
            // refused by a rate limit: what the usage limits took is given back
            const refused = Effect.fail(admitted.failure)
            return reserved.counted && reserved.result._tag === "Admitted"
              ? Effect.andThen(settleAll(counters, reserved.result.id, claims, NOTHING), refused)
              : refused
          }
          if (reserved.counted && reserved.result._tag === "Refused") {
            const refused = claims[reserved.result.index]
            return Effect.andThen(
              Metric.update(refusals, 1),
              refused === undefined
                ? forward(request, planned, admitted.success, reserved)
                : Effect.fail(exceeded(refused))
            )
          }
          return forward(request, planned, admitted.success, reserved)
        })
      })
    }
    /** An admitted request: on to the provider, then its reservations and token windows settle to what it used. */
    const forward = (
      request: GatewayRequest.GatewayRequest,
      { bound, claims }: Planned,
      admission: RateLimits.Admission,
      reserved: Reserved
    ): ReturnType<Dispatch.Dispatch> => {
      const settled = reserved.counted ? claims : []
      const reservationId = reserved.counted && reserved.result._tag === "Admitted" ? reserved.result.id : ""
      if (settled.length === 0 && !admission.countsTokens) {
        return Effect.map(next(request), (response) => withHeaders(response, admission.headers))
      }
      const settle = (used: Metering.Tokens) =>
        Effect.andThen(
          settled.length === 0 ? Effect.void : settleAll(counters, reservationId, settled, used),
          admission.addTokens(Metering.totalOf(used))
        )
      return settledAnswer(next, request, bound, admission.headers, settle)
    }
    const dispatch: Dispatch.Dispatch = (request) =>
      Effect.clockWith((clock) => {
        const workspaceId = request.context.principal.workspaceId
        const now = clock.currentTimeMillisUnsafe()
        // policies read less than a second ago are at hand: no effect to get them
        const active = services.policies.activeKept(workspaceId, now)
        const rates = services.rates.activeKept(workspaceId, now)
        if (active !== undefined && rates !== undefined) return limited(request, active, rates, now)
        return Effect.flatMap(
          services.policies.active(workspaceId),
          (active) =>
            Effect.flatMap(services.rates.active(workspaceId), (rates) => limited(request, active, rates, now))
        )
      })
    // no policy active in the workspace, as read less than a second ago: nothing to check
    return Dispatch.withIdleTest(dispatch, (request, now) => {
      const workspaceId = request.context.principal.workspaceId
      return services.policies.activeKept(workspaceId, now)?.length === 0 &&
        services.rates.activeKept(workspaceId, now)?.length === 0
    })
  }

const storeUnreachable = (
  error: CounterStoreError | RateLimits.WindowStoreError,
  onStoreError: OnStoreError
): Effect.Effect<void, GatewayError.Unavailable> =>
  onStoreError === "open"
    ? Effect.logWarning(`usage limits: counters unreachable, request let through uncounted: ${error.message}`).pipe(
      Effect.andThen(Metric.update(storeMisses, 1))
    )
    : Effect.andThen(
      Effect.logError(`usage limits: counters unreachable: ${error.message}`),
      Effect.fail(
        new GatewayError.Unavailable({
          message:
            "usage limits cannot be checked: their counters are unreachable (GATEWAY_LIMITS_ON_STORE_ERROR=closed)"
        })
      )
    )
