/**
 * Where cached answers live: string values with a time to live, and append-only lists (the
 * vectors of semantic entries, which each process reads into its own in-memory index). In memory
 * (bounded, least recently used first out) here; in Redis, so replicas share entries, with
 * `RedisCacheStore` from `@switchyard/cache/redis`, which alone loads a Redis client.
 */
import { LeastRecentlyUsed } from "@switchyard/core"
import { Clock, Context, Data, Effect, Layer } from "effect"

/**
 * Redis answered a command with an error; the cache treats it as a miss and logs it. (Redis down
 * or slow is not an error: the Redis store answers a miss or skips the write, see
 * `RedisCacheStore.layerStore` in `@switchyard/cache/redis`.)
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
