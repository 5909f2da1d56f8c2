/**
 * Cached answers in Redis, so replicas share entries: the `CacheStore` layers that need a Redis
 * client. They live apart from `CacheStore` (`@switchyard/cache/redis`), so a cache kept in memory
 * neither installs nor loads one; this entry needs the optional peer `@switchyard/redis`.
 *
 * @example
 * import { RedisCacheStore } from "@switchyard/cache/redis"
 * const store = RedisCacheStore.layer({ url: "redis://127.0.0.1:6379" })
 */
import { RedisConnection, StoreOutage } from "@switchyard/redis"
import { Config, type Duration, Effect, Layer, Option, type Redacted } from "effect"
import { Redis } from "effect/persistence"
import * as CacheStore from "./CacheStore.ts"

/** Where entries live in Redis unless told otherwise. */
export const DEFAULT_PREFIX = "switchyard:cache:"

/** The cause of a failure that did not reach Redis; `undefined` when Redis answered with it. */
const unreachable = (error: Redis.RedisError): unknown => RedisConnection.isReply(error.cause) ? undefined : error.cause

/**
 * Entries in Redis under `prefix` over a `Redis` service the app already has: values are strings
 * with `PX`, lists are Redis lists whose expiry moves with each append. No request waits on
 * Redis: while it is down or slow (no answer within `deadline`, 150 ms unless given), a lookup is
 * a miss and a write is skipped, until a background `PING` finds it answering again (see the
 * README).
 */
export const layerStore = (
  options?: { readonly prefix?: string | undefined; readonly deadline?: Duration.Input | undefined }
): Layer.Layer<CacheStore.CacheStore, never, Redis.Redis> =>
  Layer.effect(
    CacheStore.CacheStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const prefix = options?.prefix ?? DEFAULT_PREFIX
      const outage = yield* StoreOutage.make({
        store: "cache",
        whileDown: "lookups are misses and answers are not stored",
        ping: redis.send("PING"),
        deadline: options?.deadline
      })
      const guarded = <A>(operation: Effect.Effect<A, Redis.RedisError>, fallback: A) =>
        outage.guard(operation, { fallback, unreachable }).pipe(
          Effect.mapError((error) => new CacheStore.CacheStoreError({ message: `redis: ${error.message}` }))
        )
      const send = redis.send
      const ttl = (millis: number) => String(Math.max(1, Math.ceil(millis)))
      return CacheStore.CacheStore.of({
        get: (key) =>
          guarded(Effect.map(send<string | null>("GET", prefix + key), (value) => value ?? undefined), undefined),
        set: (key, value, ttlMillis) =>
          guarded(Effect.asVoid(send("SET", prefix + key, value, "PX", ttl(ttlMillis))), undefined),
        append: (list, item, ttlMillis) =>
          guarded(
            Effect.asVoid(
              Effect.andThen(send("RPUSH", prefix + list, item), send("PEXPIRE", prefix + list, ttl(ttlMillis)))
            ),
            undefined
          ),
        readFrom: (list, offset) =>
          guarded(
            Effect.flatMap(send<ReadonlyArray<string>>("LRANGE", prefix + list, String(offset), "-1"), (items) => {
              if (items.length > 0 || offset === 0) {
                return Effect.succeed<CacheStore.ListSlice>({ items, next: offset + items.length, reset: false })
              }
              // nothing new: check whether the list expired and started again shorter
              return Effect.map(send<number>("LLEN", prefix + list), (length): CacheStore.ListSlice =>
                length < offset
                  ? { items: [], next: 0, reset: true }
                  : { items: [], next: offset, reset: false })
            }),
            // while Redis is down: nothing new, the index keeps what it has
            { items: [], next: offset, reset: false }
          )
      })
    })
  )

/**
 * Entries in the Redis at `url`, over a connection of their own that never queues commands while
 * it is down and reconnects in the background. It builds while Redis is down (lookups are misses
 * until it comes up); it fails only when `url` is not a Redis URL.
 */
export const layer = (
  options: {
    readonly url: string | Redacted.Redacted<string>
    readonly prefix?: string | undefined
    readonly deadline?: Duration.Input | undefined
  }
): Layer.Layer<CacheStore.CacheStore, Redis.RedisError> =>
  layerStore({ prefix: options.prefix, deadline: options.deadline }).pipe(
    Layer.provide(RedisConnection.layer({ url: options.url }))
  )

/** {@link layer} when `REDIS_URL` is set (replicas share entries), otherwise `CacheStore.layerMemory()`. */
export const layerFromEnv: Layer.Layer<CacheStore.CacheStore, Redis.RedisError | Config.ConfigError> = Layer.unwrap(
  Effect.map(
    Config.option(Config.Redacted("REDIS_URL")),
    Option.match({ onNone: () => CacheStore.layerMemory(), onSome: (url) => layer({ url }) })
  )
)
