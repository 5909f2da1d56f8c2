/**
 * Where cached answers live: string values with a time to live, and append-only lists (the
 * vectors of semantic entries, which each process reads into its own in-memory index). In memory
 * (bounded, least recently used first out) or in Redis, so replicas share entries.
 */
import { LeastRecentlyUsed } from "@switchyard/core"
import { RedisConnection, StoreOutage } from "@switchyard/redis"
import { Clock, Config, Context, Data, Effect, Layer, Option, type Redacted } from "effect"
import { Redis } from "effect/persistence"

/**
 * Redis answered a command with an error; the cache treats it as a miss and logs it. (Redis down
 * or slow is not an error: the Redis store answers a miss or skips the write, see `layerStoreRedis`.)
 */
export class CacheStoreError extends Data.TaggedError("CacheStoreError")<{ readonly message: string }> {}

/** Items of a list from an offset on. `reset`: the list is shorter than the offset (it expired). */
export interface ListSlice {
  readonly items: ReadonlyArray<string>
  /** The offset to read from next time. */
  readonly next: number
  readonly reset: boolean
}

export class CacheStore extends Context.Service<CacheStore, {
  readonly get: (key: string) => Effect.Effect<string | undefined, CacheStoreError>
  readonly set: (key: string, value: string, ttlMillis: number) => Effect.Effect<void, CacheStoreError>
  /** Appends to a list and sets the list's time to live. */
  readonly append: (list: string, item: string, ttlMillis: number) => Effect.Effect<void, CacheStoreError>
  /** Items appended since `offset` (the count of items appended before them). */
  readonly readFrom: (list: string, offset: number) => Effect.Effect<ListSlice, CacheStoreError>
}>()("@switchyard/cache/CacheStore") {}

/** Where entries live in Redis unless told otherwise. */
export const DEFAULT_REDIS_PREFIX = "switchyard:cache:"

interface Timed<A> {
  readonly value: A
  readonly expiresAt: number
}

interface MemoryList {
  /** Items dropped from the front: offsets stay absolute. */
  base: number
  readonly items: Array<string>
  expiresAt: number
}

/**
 * Entries in this process, at most `capacity` answers (default 10,000) and `lists` lists of at most
 * `listLength` items each; the least recently used go first, expired ones are never returned.
 */
export const layerMemory = (options?: {
  readonly capacity?: number
  readonly lists?: number
  readonly listLength?: number
}): Layer.Layer<CacheStore> =>
  Layer.sync(CacheStore, () => {
    const values = new LeastRecentlyUsed.LeastRecentlyUsed<string, Timed<string>>(options?.capacity ?? 10_000)
    const lists = new LeastRecentlyUsed.LeastRecentlyUsed<string, MemoryList>(options?.lists ?? 4_096)
    const listLength = options?.listLength ?? 100_000
    return CacheStore.of({
      get: (key) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          const entry = values.get(key)
          if (entry === undefined) return undefined
          if (entry.expiresAt <= now) {
            values.delete(key)
            return undefined
          }
          return entry.value
        }),
      set: (key, value, ttlMillis) =>
        Effect.map(Clock.currentTimeMillis, (now) => values.set(key, { value, expiresAt: now + ttlMillis })),
      append: (name, item, ttlMillis) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          let list = lists.get(name)
          if (list === undefined || list.expiresAt <= now) {
            list = { base: 0, items: [], expiresAt: 0 }
            lists.set(name, list)
          }
          list.items.push(item)
          list.expiresAt = now + ttlMillis
          if (list.items.length > listLength) {
            const dropped = list.items.length - listLength
            list.items.splice(0, dropped)
            list.base += dropped
          }
        }),
      readFrom: (name, offset) =>
        Effect.map(Clock.currentTimeMillis, (now): ListSlice => {
          const list = lists.get(name)
          if (list === undefined || list.expiresAt <= now) return { items: [], next: 0, reset: offset > 0 }
          const end = list.base + list.items.length
          if (offset > end) return { items: list.items.slice(), next: end, reset: true }
          return { items: list.items.slice(Math.max(0, offset - list.base)), next: end, reset: false }
        })
    })
  })

/** The cause of a failure that did not reach Redis; `undefined` when Redis answered with it. */
const unreachable = (error: Redis.RedisError): unknown => RedisConnection.isReply(error.cause) ? undefined : error.cause

/**
 * Entries in Redis under `prefix` over a `Redis` service the app already has: values are strings
 * with `PX`, lists are Redis lists whose expiry moves with each append. No request waits on
 * Redis: while it is down or slow (no answer within 150 ms), a lookup is a miss and a write is
 * skipped, until a background `PING` finds it answering again (see the README).
 */
export const layerStoreRedis = (
  options?: { readonly prefix?: string | undefined }
): Layer.Layer<CacheStore, never, Redis.Redis> =>
  Layer.effect(
    CacheStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const prefix = options?.prefix ?? DEFAULT_REDIS_PREFIX
      const outage = yield* StoreOutage.make({
        store: "cache",
        whileDown: "lookups are misses and answers are not stored",
        ping: redis.send("PING")
      })
      const guarded = <A>(operation: Effect.Effect<A, Redis.RedisError>, fallback: A) =>
        outage.guard(operation, { fallback, unreachable }).pipe(
          Effect.mapError((error) => new CacheStoreError({ message: `redis: ${error.message}` }))
        )
      const send = redis.send
      const ttl = (millis: number) => String(Math.max(1, Math.ceil(millis)))
      return CacheStore.of({
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
                return Effect.succeed<ListSlice>({ items, next: offset + items.length, reset: false })
              }
              // nothing new: check whether the list expired and started again shorter
              return Effect.map(send<number>("LLEN", prefix + list), (length): ListSlice =>
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
export const layerRedis = (
  options: { readonly url: string | Redacted.Redacted<string>; readonly prefix?: string | undefined }
): Layer.Layer<CacheStore, Redis.RedisError> =>
  layerStoreRedis({ prefix: options.prefix }).pipe(Layer.provide(RedisConnection.layer({ url: options.url })))

/** {@link layerRedis} when `REDIS_URL` is set (replicas share entries), otherwise {@link layerMemory}. */
export const layerFromEnv: Layer.Layer<CacheStore, Redis.RedisError | Config.ConfigError> = Layer.unwrap(
  Effect.map(
    Config.option(Config.Redacted("REDIS_URL")),
    Option.match({ onNone: () => layerMemory(), onSome: (url) => layerRedis({ url }) })
  )
)
