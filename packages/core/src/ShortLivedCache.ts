/**
 * What a request read from storage, kept for a moment: a burst of requests naming the same object
 * reads it once. Changes made through this process drop the entry at once (`invalidate`); other
 * replicas see them within the time to live. At most `capacity` entries, the least recently used
 * forgotten first.
 *
 * @example
 * import { ShortLivedCache } from "@switchyard/core"
 * import { Effect } from "effect"
 *
 * const policies = new ShortLivedCache.ShortLivedCache<ReadonlyArray<string>>({ capacity: 1_024, ttlMs: 1_000 })
 * // `load` runs only when nothing fresh is kept: a hit builds no query
 * const active = (workspaceId: string) => policies.through(workspaceId, () => Effect.succeed(["policy-1"]))
 */
import { Clock, Effect } from "effect"
import { LeastRecentlyUsed } from "./LeastRecentlyUsed.ts"

export class ShortLivedCache<V> {
  readonly #entries: LeastRecentlyUsed<string, { readonly value: V; readonly until: number }>
  readonly #ttlMs: number
  /**
   * Counts invalidations. A load that started before one may have read the object as it was before
   * the change: what it brings back is answered but not kept, or the change would go unseen for
   * the time to live.
   */
  #generation = 0

  constructor(options: { readonly capacity: number; readonly ttlMs: number }) {
    this.#entries = new LeastRecentlyUsed(options.capacity)
    this.#ttlMs = options.ttlMs
  }

  /** The kept value, or what `load` reads (then kept, unless an invalidation came while it read). */
  through<E, R>(key: string, load: () => Effect.Effect<V, E, R>): Effect.Effect<V, E, R> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const hit = this.#entries.get(key)
      if (hit !== undefined && hit.until > now) return Effect.succeed(hit.value)
      const generation = this.#generation
      return Effect.tap(load(), (value) =>
        Effect.sync(() => {
          if (generation === this.#generation) this.#entries.set(key, { value, until: now + this.#ttlMs })
        }))
    })
  }

  /** The kept value while it is fresh at `now`, without an effect; else `undefined`. */
  peek(key: string, now: number): V | undefined {
    const hit = this.#entries.get(key)
    return hit !== undefined && hit.until > now ? hit.value : undefined
  }

  invalidate(key: string): void {
    this.#generation++
    this.#entries.delete(key)
  }

  invalidateAll(): void {
    this.#generation++
    this.#entries.clear()
  }
}
