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
import { Stage } from "@switchyard/core"
import { Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import type { SqlClient } from "effect/sql"
import { middleware, type Services } from "./internal/LimitsMiddleware.ts"
import * as LocalWindows from "./LocalWindows.ts"
import { RatePolicies } from "./RatePolicies.ts"
import * as StoredProviders from "./StoredProviders.ts"
import { UsageCounters } from "./UsageCounters.ts"
import { UsagePolicies } from "./UsagePolicies.ts"

export { usageMap } from "./internal/UsageMap.ts"

/** What a request does when the counters cannot be reached (`GATEWAY_LIMITS_ON_STORE_ERROR`). */
export type OnStoreError = "closed" | "open"

export interface Options {
  /** `closed` (default): 503, nothing goes upstream; `open`: the request goes on, uncounted, and the miss is logged and counted. */
  readonly onStoreError?: OnStoreError | undefined
}

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
