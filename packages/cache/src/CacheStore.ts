/**
 * Where cached answers live: string values with a time to live, and append-only lists (the
 * vectors of semantic entries, which each process reads into its own in-memory index). In memory
 * (bounded, least recently used first out) or in Redis, so replicas share entries.
 */
import { NodeRedis } from "@effect/platform-node"
import { LeastRecentlyUsed } from "@switchyard/core"
import { Clock, Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"
import { Redis } from "effect/persistence"

/** The store could not be read or written; the cache treats it as a miss and logs it. */
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

/**
 * Entries in Redis under `prefix` over a `Redis` service the app already has: values are strings
 * with `PX`, lists are Redis lists whose expiry moves with each append.
 */
export const layerStoreRedis = (
  options?: { readonly prefix?: string | undefined }
): Layer.Layer<CacheStore, never, Redis.Redis> =>
  Layer.effect(
    CacheStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const prefix = options?.prefix ?? DEFAULT_REDIS_PREFIX
      const failed = (error: Redis.RedisError) => new CacheStoreError({ message: `redis: ${error.message}` })
      const send = <A>(command: string, ...args: ReadonlyArray<string>) =>
        Effect.mapError(redis.send<A>(command, ...args), failed)
      const ttl = (millis: number) => String(Math.max(1, Math.ceil(millis)))
      return CacheStore.of({
        get: (key) => Effect.map(send<string | null>("GET", prefix + key), (value) => value ?? undefined),
        set: (key, value, ttlMillis) => Effect.asVoid(send("SET", prefix + key, value, "PX", ttl(ttlMillis))),
        append: (list, item, ttlMillis) =>
          Effect.asVoid(
            Effect.andThen(send("RPUSH", prefix + list, item), send("PEXPIRE", prefix + list, ttl(ttlMillis)))
          ),
        readFrom: (list, offset) =>
          Effect.flatMap(send<ReadonlyArray<string>>("LRANGE", prefix + list, String(offset), "-1"), (items) => {
            if (items.length > 0 || offset === 0) {
              return Effect.succeed<ListSlice>({ items, next: offset + items.length, reset: false })
            }
            // nothing new: check whether the list expired and started again shorter
            return Effect.map(send<number>("LLEN", prefix + list), (length): ListSlice =>
              length < offset
                ? { items: [], next: 0, reset: true }
                : { items: [], next: offset, reset: false })
          })
      })
    })
  )

/** Entries in the Redis at `url`, over a connection of their own; fails to build when unreachable. */
export const layerRedis = (
  options: { readonly url: string | Redacted.Redacted<string>; readonly prefix?: string | undefined }
): Layer.Layer<CacheStore, Redis.RedisError> =>
  layerStoreRedis({ prefix: options.prefix }).pipe(
    Layer.provide(
      NodeRedis.layer({ url: Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url })
    )
  )

/** {@link layerRedis} when `REDIS_URL` is set (replicas share entries), otherwise {@link layerMemory}. */
export const layerFromEnv: Layer.Layer<CacheStore, Redis.RedisError | Config.ConfigError> = Layer.unwrap(
  Effect.map(
    Config.option(Config.Redacted("REDIS_URL")),
    Option.match({ onNone: () => layerMemory(), onSome: (url) => layerRedis({ url }) })
  )
)
