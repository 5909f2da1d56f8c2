/**
 * Usage limits as a pipeline stage (phase `limits`): before a leaf's provider is called, every
 * active policy whose conditions match reserves an upper bound of the call's usage on its value
 * key's counter; a policy whose counter has reached its `credit_limit` refuses the request (412
 * naming it). After the answer the reservations settle to the real usage: a JSON answer's
 * `usage`, a stream's usage chunk (asked of the provider when the client did not ask, and kept
 * from the client then), or, for a stream cut short, what it had sent. A failure releases them;
 * a cached answer counts nothing.
 *
 * @example
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { UsageLimits } from "@switchyard/usage-limits"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
 *   Layer.provide(UsageLimits.stage()),
 *   Layer.provide([Stage.Stages.layer, UsageLimits.layerSql]) // needs an SqlClient (@switchyard/storage)
 * )
 */
import {
  type Dispatch,
  type Endpoint,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  type ProviderTarget,
  Stage
} from "@switchyard/core"
import { Clock, Effect, Exit, Layer, Metric, Result, Stream } from "effect"
import { RateLimiter } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import * as Matching from "./internal/Matching.ts"
import * as Periods from "./internal/Periods.ts"
import * as LocalWindows from "./LocalWindows.ts"
import * as Metering from "./Metering.ts"
import * as RateLimits from "./RateLimits.ts"
import { RatePolicies, type RatePolicy } from "./RatePolicies.ts"
import * as StoredProviders from "./StoredProviders.ts"
import {
  type CounterStoreError,
  type ImmediateCounters,
  type Reservation,
  type Settlement,
  UsageCounters
} from "./UsageCounters.ts"
import { describePolicy, UnpricedModel, UsageLimitExceeded } from "./UsageLimitErrors.ts"
import { UsagePolicies, type UsagePolicy } from "./UsagePolicies.ts"

/** What a request does when the counters cannot be reached (`GATEWAY_LIMITS_ON_STORE_ERROR`). */
export type OnStoreError = "closed" | "open"

export interface Options {
  /** `closed` (default): 503, nothing goes upstream; `open`: the request goes on, uncounted, and the miss is logged and counted. */
  readonly onStoreError?: OnStoreError | undefined
}

/** `gateway_policy_refusals_total` by the kind of policy and the status it answered: two series. */
const refusalsOf = (policy: "usage_limit" | "rate_limit", status: number) =>
  Metric.counter("gateway_policy_refusals_total", {
    description: "Requests refused by a policy, by kind of policy and status",
    attributes: { policy, status: String(status) },
    incremental: true
  })
const refusals = refusalsOf("usage_limit", 412)
const rateRefusals = refusalsOf("rate_limit", 429)

const storeMisses = Metric.counter("gateway_usage_counter_misses_total", {
  description: "Requests that went on uncounted because the usage counters could not be reached (open mode)",
  incremental: true
})

/** Answered by the cache middleware inside this stage; a hit calls no provider and costs nothing. */
const CACHE_STATUS_HEADER = "x-gateway-cache-status"

const isCacheHit = (response: GatewayResponse.GatewayResponse): boolean => {
  const status = response.headers[CACHE_STATUS_HEADER]
  return status === "HIT" || status === "SEMANTIC HIT"
}

/** The facts of a request at one leaf; `provider` is the stored credential's own for `@slug` and virtual keys. */
const factsOf = (
  target: ProviderTarget.ProviderTarget,
  request: GatewayRequest.GatewayRequest,
  provider: string,
  /** The virtual key's id, resolved from its token by `StoredProviders`: never the token, a credential. */
  virtualKeyId?: string | undefined
): Matching.Facts => {
  const model = request.body.model
  return {
    api_key: request.context.principal.keyId,
    workspace_id: request.context.principal.workspaceId,
    virtual_key: target.virtual_key === undefined ? undefined : virtualKeyId,
    provider,
    model: typeof model === "string" ? model : undefined,
    integration: target.provider.startsWith("@") && target.provider.length > 1 ? target.provider.slice(1) : undefined,
    metadata: request.context.metadata
  }
}

/** One matched policy, with what the request reserves on it and how its usage is measured. */
interface Claim {
  readonly policy: UsagePolicy
  readonly reservation: Reservation
  readonly measure: (tokens: Metering.Tokens) => number
}

const claimsOf = (
  policies: ReadonlyArray<UsagePolicy>,
  facts: Matching.Facts,
  /** A stored credential's own prices, which win over the catalog's. */
  ownPrice: Metering.Price | undefined,
  endpoint: Endpoint.Endpoint,
  body: GatewayRequest.JsonObject,
  now: number
): { readonly claims: ReadonlyArray<Claim>; readonly bound: Metering.Tokens } | UnpricedModel => {
  const claims: Array<Claim> = []
  const model = facts.model ?? ""
  const bound = Metering.boundOf(endpoint, body, Metering.contextLengthOf(facts.provider, model))
  for (const policy of policies) {
    if (!Matching.matches(policy.conditions, facts)) continue
    let measure: (tokens: Metering.Tokens) => number = Metering.totalOf
    if (policy.type === "cost") {
      const price = ownPrice ?? Metering.catalogPrice(facts.provider, model)
      if (price === undefined) {
        return new UnpricedModel({ policyId: policy.id, policyName: policy.name, provider: facts.provider, model })
      }
      measure = (tokens) => Metering.costOf(price, tokens)
    }
    const period = Periods.periodAt(policy.periodicReset, now)
    const valueKey = Matching.valueKey(policy.groupBy, facts)
    claims.push({
      policy,
      measure,
      reservation: {
        counter: `${policy.id}:${policy.epoch}:${period.id}`,
        workspaceId: policy.workspaceId,
        policyId: policy.id,
        valueKey,
        limit: policy.creditLimit,
        // an unbounded call reserves the whole limit: nothing else is admitted until it settles
        amount: Math.min(measure(bound), policy.creditLimit)
      }
    })
  }
  return { claims, bound }
}

/** Asks the provider for a stream's usage when the client did not; the usage chunk is then kept from it. */
const withStreamUsage = (request: GatewayRequest.GatewayRequest): GatewayRequest.GatewayRequest => {
  const options = request.body.stream_options
  const asked = typeof options === "object" && options !== null && "include_usage" in options &&
    options.include_usage === true
  if (!request.stream || request.endpoint === "embeddings" || asked) return request
  return {
    ...request,
    body: { ...request.body, stream_options: { ...(typeof options === "object" ? options : {}), include_usage: true } }
  }
}

const streamAsked = (request: GatewayRequest.GatewayRequest): boolean => {
  const options = request.body.stream_options
  return typeof options === "object" && options !== null && "include_usage" in options && options.include_usage === true
}

/** What the stage reads its policies and counts from. */
interface Services {
  readonly policies: UsagePolicies["Service"]
  readonly counters: UsageCounters["Service"]
  readonly rates: RatePolicies["Service"]
  readonly limiter: RateLimiter.RateLimiter
  readonly windows: RateLimiter.RateLimiterStore["Service"]
  readonly onStoreError: OnStoreError
  readonly storedProviders: StoredProviders.Resolver
  /** Set when the counters and the windows are this process's own: the fast path's stores. */
  readonly local: { readonly counters: ImmediateCounters; readonly windows: LocalWindows.LocalWindows } | undefined
}

/** The stage's middleware for one leaf: rate limits first (a refused request reserves nothing), then usage limits. */
const middleware = (target: ProviderTarget.ProviderTarget, services: Services): Dispatch.Middleware => (next) => {
  const { counters, onStoreError } = services
  return (request) => {
    const workspaceId = request.context.principal.workspaceId
    return Effect.flatMap(
      services.policies.active(workspaceId),
      (active) =>
        Effect.flatMap(services.rates.active(workspaceId), (rates) => {
          // the common case, no policy in the workspace, costs two map lookups
          if (active.length === 0 && rates.length === 0) return next(request)
          const local = services.local
          const slow = Effect.gen(function*() {
            const stored = target.provider.startsWith("@")
              ? yield* services.storedProviders.resolve(workspaceId, target)
              : undefined
            const facts = factsOf(target, request, stored?.provider ?? target.provider, stored?.virtualKeyId)
            const planned = claimsOf(
              active,
              facts,
              stored?.price,
              request.endpoint,
              request.body,
              yield* Clock.currentTimeMillis
            )
            if (planned instanceof UnpricedModel) return yield* planned
            const { bound, claims } = planned
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
              ? Effect.succeed({ counted: false as const })
              : counters.reserve(claims.map((claim) => claim.reservation)).pipe(
                Effect.map((result) => ({ counted: true as const, result })),
                Effect.catchTag(
                  "CounterStoreError",
                  (error) => Effect.as(storeUnreachable(error, onStoreError), { counted: false as const })
                )
              )
            // both stores are asked at once: with Redis, one round trip instead of two
            const [admitted, reserved] = yield* Effect.all([Effect.result(admit), reserve], {
              concurrency: rates.length > 0 && claims.length > 0 ? 2 : 1
            })
            if (Result.isFailure(admitted)) {
              // refused by a rate limit: what the usage limits took is given back
              if (reserved.counted && reserved.result._tag === "Admitted") {
                yield* settleAll(counters, reserved.result.id, claims, NOTHING)
              }
              return yield* Effect.fail(admitted.failure)
            }
            const admission = admitted.success
            if (reserved.counted && reserved.result._tag === "Refused") {
              const refused = claims[reserved.result.index]
              yield* Metric.update(refusals, 1)
              if (refused !== undefined) return yield* exceeded(refused)
            }
            const settled = reserved.counted ? claims : []
            const reservationId = reserved.counted && reserved.result._tag === "Admitted" ? reserved.result.id : ""
            if (settled.length === 0 && !admission.countsTokens) {
              return withHeaders(yield* next(request), admission.headers)
            }
            const settle = (used: Metering.Tokens) =>
              Effect.andThen(
                settled.length === 0 ? Effect.void : settleAll(counters, reservationId, settled, used),
                admission.addTokens(Metering.totalOf(used))
              )
            const response = yield* next(withStreamUsage(request)).pipe(
              Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : settle(NOTHING))
            )
            if (isCacheHit(response)) {
              yield* settle(NOTHING)
              return withHeaders(response, admission.headers)
            }
            if (response._tag === "Json") {
              const body = response.body()
              yield* settle(
                Metering.reportedUsage(body) ??
                  { promptTokens: bound.promptTokens, completionTokens: Metering.textBytes(body) }
              )
              return withHeaders(response, admission.headers)
            }
            return withHeaders(metered(response, streamAsked(request), bound, settle), admission.headers)
          })
          // an `@slug` target's provider and prices are read from the store: the effectful way
          if (local === undefined || target.provider.startsWith("@")) return slow
          return Effect.clockWith((clock) =>
            immediately(target, request, next, active, rates, local, clock.currentTimeMillisUnsafe()) ?? slow
          )
        })
    )
  }
}

/**
 * The middleware's steps on stores in this process's memory (the embedded default), without an
 * effect per step: the same order, checks and answers as the effectful path, at about a fifth of
 * its cost (18 µs → 3 µs of CPU a request in process, one policy of each kind). `undefined` while
 * a counter has not been read from the database: the effectful path reads it, and later requests
 * come here.
 */
const immediately = (
  target: ProviderTarget.ProviderTarget,
  request: GatewayRequest.GatewayRequest,
  next: Dispatch.Dispatch,
  active: ReadonlyArray<UsagePolicy>,
  rates: ReadonlyArray<RatePolicy>,
  local: NonNullable<Services["local"]>,
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
  return Effect.flatMap(
    Effect.onExit(next(withStreamUsage(request)), (exit) => Exit.isSuccess(exit) ? Effect.void : settle(NOTHING)),
    (response) => {
      if (isCacheHit(response)) return Effect.as(settle(NOTHING), withHeaders(response, admission.headers))
      if (response._tag === "Json") {
        const body = response.body()
        const used = Metering.reportedUsage(body) ??
          { promptTokens: bound.promptTokens, completionTokens: Metering.textBytes(body) }
        return Effect.as(settle(used), withHeaders(response, admission.headers))
      }
      return Effect.succeed(withHeaders(metered(response, streamAsked(request), bound, settle), admission.headers))
    }
  )
}

const exceeded = (claim: Claim): UsageLimitExceeded =>
  new UsageLimitExceeded({
    policyId: claim.policy.id,
    policyName: claim.policy.name,
    type: claim.policy.type,
    creditLimit: claim.policy.creditLimit,
    valueKey: claim.reservation.valueKey
  })

const withHeaders = <A extends GatewayResponse.GatewayResponse>(
  response: A,
  headers: Readonly<Record<string, string>>
): GatewayResponse.GatewayResponse =>
  Object.keys(headers).length === 0 ? response : GatewayResponse.withHeaders(response, headers)

const NOTHING: Metering.Tokens = { promptTokens: 0, completionTokens: 0 }

/** Follows a stream's usage, settling at its end whatever the end is; hides the usage chunk the client did not ask for. */
const metered = (
  response: GatewayResponse.StreamResponse,
  clientAskedUsage: boolean,
  bound: Metering.Tokens,
  settle: (used: Metering.Tokens) => Effect.Effect<void>
): GatewayResponse.StreamResponse => {
  let reported: Metering.Tokens | undefined
  let sentBytes = 0
  const chunks = response.chunks.pipe(
    Stream.tap((chunk) =>
      Effect.sync(() => {
        reported = Metering.reportedUsage(chunk) ?? reported
        sentBytes += Metering.textBytes(chunk.choices)
      })
    ),
    Stream.filter((chunk) =>
      clientAskedUsage || !(Array.isArray(chunk.choices) && chunk.choices.length === 0 && "usage" in chunk)
    ),
    Stream.map((chunk) => {
      if (clientAskedUsage || !("usage" in chunk)) return chunk
      const { usage: _, ...rest } = chunk
      return rest
    }),
    Stream.onExit(() => settle(reported ?? { promptTokens: bound.promptTokens, completionTokens: sentBytes }))
  )
  return { ...response, chunks }
}

const settlementsOf = (claims: ReadonlyArray<Claim>, used: Metering.Tokens): Array<Settlement> =>
  claims.map((claim) => ({
    counter: claim.reservation.counter,
    workspaceId: claim.reservation.workspaceId,
    valueKey: claim.reservation.valueKey,
    reserved: claim.reservation.amount,
    used: claim.measure(used),
    alertThreshold: claim.policy.alertThreshold
  }))

/** Logs each policy whose alert threshold a settlement crossed (`crossed`: indexes into `claims`). */
const alerts = (claims: ReadonlyArray<Claim>, crossed: ReadonlyArray<number>): Effect.Effect<void> =>
  Effect.forEach(crossed, (index) => {
    const claim = claims[index]
    return claim === undefined ? Effect.void : Effect.logWarning(
      `usage-limit policy ${describePolicy(claim.policy.id, claim.policy.name)} crossed its alert threshold ` +
        `(${claim.policy.alertThreshold}) for ${claim.reservation.valueKey}`
    )
  }, { discard: true })

const settleAll = (
  counters: UsageCounters["Service"],
  reservationId: string,
  claims: ReadonlyArray<Claim>,
  used: Metering.Tokens
): Effect.Effect<void> => {
  return counters.settle(reservationId, settlementsOf(claims, used)).pipe(
    Effect.flatMap((crossed) => crossed.length === 0 ? Effect.void : alerts(claims, crossed)),
    // the answer has gone out already: a settlement that cannot be written is logged, not answered
    Effect.catchTag("CounterStoreError", (error) => Effect.logError(`usage limits: cannot settle: ${error.message}`))
  )
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

/**
 * Adds usage limits and rate limits to the pipeline (phase `limits`). The policies, counters and
 * rate windows stay in the layer's type: {@link layerSql}, or the Redis counters and windows of
 * `RedisUsageCounters.layerStores`.
 */
export const stage = (
  options?: Options
): Layer.Layer<
  never,
  Stage.StageConflict,
  UsagePolicies | UsageCounters | RatePolicies | RateLimiter.RateLimiterStore | Stage.Stages
> =>
  Stage.layer(Effect.gen(function*() {
    const windows = yield* RateLimiter.RateLimiterStore
    const counters = yield* UsageCounters
    const localWindows = LocalWindows.of(windows)
    const services: Services = {
      policies: yield* UsagePolicies,
      counters,
      rates: yield* RatePolicies,
      limiter: yield* Effect.provideService(RateLimiter.make, RateLimiter.RateLimiterStore, windows),
      windows,
      onStoreError: options?.onStoreError ?? "closed",
      storedProviders: yield* StoredProviders.StoredProviders,
      local: counters.immediate === undefined || localWindows === undefined
        ? undefined
        : { counters: counters.immediate, windows: localWindows }
    }
    return Stage.make("limits", "usage-limits", (target) => Effect.succeed(middleware(target, services)))
  }))

/**
 * A policy's `value_key_usage_map` (extensions.md): per value key of the current period and
 * epoch, its usage, when it was last reset (the period's start, or the last reset, whichever is
 * later; null for a cumulative limit never reset) and whether its alert was raised.
 */
export const usageMap = (
  policy: UsagePolicy
): Effect.Effect<
  Record<string, { readonly usage: number; readonly last_reset_at: string | null; readonly alerted: boolean }>,
  CounterStoreError,
  UsageCounters
> =>
  Effect.gen(function*() {
    const period = Periods.periodAt(policy.periodicReset, yield* Clock.currentTimeMillis)
    const counters = yield* (yield* UsageCounters).usage(
      policy.workspaceId,
      `${policy.id}:${policy.epoch}:${period.id}`
    )
    const resetAt = Math.max(period.start ?? 0, policy.resetAt ?? 0)
    const lastResetAt = resetAt === 0 ? null : new Date(resetAt).toISOString()
    const map: Record<string, { usage: number; last_reset_at: string | null; alerted: boolean }> = {}
    for (const counter of counters) {
      map[counter.valueKey] = { usage: counter.usage, last_reset_at: lastResetAt, alerted: counter.alerted }
    }
    return map
  })

/**
 * What the stage and the routes need, kept in the gateway's database: usage-limit and rate-limit
 * policies and the usage counters; rate windows in this process's memory (for windows shared by
 * replicas, `RedisUsageCounters.layerStores` from `@switchyard/usage-limits/redis`).
 */
export const layerSql: Layer.Layer<
  UsagePolicies | UsageCounters | RatePolicies | RateLimiter.RateLimiterStore,
  never,
  SqlClient.SqlClient
> = Layer.mergeAll(
  UsagePolicies.layer,
  UsageCounters.layerSql,
  RatePolicies.layer,
  LocalWindows.layer
)
