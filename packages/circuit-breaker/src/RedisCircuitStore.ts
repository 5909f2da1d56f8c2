/**
 * Circuits in Redis, so every replica sees the same circuits: the circuit stores that need a Redis
 * client. They live apart from `CircuitBreakerMiddleware` (`@switchyard/circuit-breaker/redis`), so
 * circuits kept in memory neither install nor load one; this entry needs the optional peer
 * `@switchyard/redis`.
 *
 * @example
 * import { RedisCircuitStore } from "@switchyard/circuit-breaker/redis"
 * const store = RedisCircuitStore.layer({ url: "redis://127.0.0.1:6379" })
 */
import { RedisConnection } from "@switchyard/redis"
import { Config, type Duration, Effect, Layer, Option, type Redacted } from "effect"
import type { CircuitBreaker, Redis } from "effect/persistence"
import * as CircuitBreakerMiddleware from "./CircuitBreakerMiddleware.ts"
import * as FailOpenCircuitStore from "./internal/FailOpenCircuitStore.ts"

/** Where circuits live in Redis unless told otherwise: `switchyard:circuit:<key>`. */
export const DEFAULT_PREFIX = "switchyard:circuit:"

/**
 * Circuits in Redis over a `Redis` service the app already has (shared with other features):
 * every replica using the same Redis and prefix sees the same circuits. No attempt waits on
 * Redis: while it is down or slow (no answer within `deadline`, 150 ms unless given), a circuit
 * counts as closed and outcomes are not recorded, until a background `PING` finds it answering
 * again (see the README).
 */
export const layerStore = (
  options?: { readonly prefix?: string | undefined; readonly deadline?: Duration.Input | undefined }
): Layer.Layer<CircuitBreaker.CircuitBreakerStore, never, Redis.Redis> =>
  FailOpenCircuitStore.layer({ prefix: options?.prefix ?? DEFAULT_PREFIX, deadline: options?.deadline })

/**
 * Circuits in the Redis at `url`, over a connection of their own that never queues commands while
 * it is down and reconnects in the background. It builds while Redis is down (circuits count as
 * closed until it comes up); it fails only when `url` is not a Redis URL.
 */
export const layer = (
  options: {
    readonly url: string | Redacted.Redacted<string>
    readonly prefix?: string | undefined
    readonly deadline?: Duration.Input | undefined
  }
): Layer.Layer<CircuitBreaker.CircuitBreakerStore, Redis.RedisError> =>
  layerStore({ prefix: options.prefix, deadline: options.deadline }).pipe(
    Layer.provide(RedisConnection.layer({ url: options.url }))
  )

/** {@link layer} when `REDIS_URL` is set (so replicas share circuits), otherwise `CircuitBreakerMiddleware.layerMemory`. */
export const layerFromEnv: Layer.Layer<CircuitBreaker.CircuitBreakerStore, Redis.RedisError | Config.ConfigError> =
  Layer.unwrap(
    Effect.map(
      Config.option(Config.Redacted("REDIS_URL")),
      Option.match({ onNone: () => CircuitBreakerMiddleware.layerMemory, onSome: (url) => layer({ url }) })
    )
  )
