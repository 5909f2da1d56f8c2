/**
 * What a request read from storage, kept for a moment: provider resolution reads storage at most
 * once per request, and a burst of requests naming the same object reads it once. Changes made
 * through this process drop the entry at once; other replicas see them within the time to live.
 */
import { LeastRecentlyUsed } from "@switchyard/core"
import { Clock, Effect } from "effect"

export class ShortLivedCache<V> {
  readonly #entries: LeastRecentlyUsed.LeastRecentlyUsed<string, { readonly value: V; readonly until: number }>
  readonly #ttlMs: number

  constructor(options: { readonly capacity: number; readonly ttlMs: number }) {
    this.#entries = new LeastRecentlyUsed.LeastRecentlyUsed(options.capacity)
    this.#ttlMs = options.ttlMs
  }

  /** The cached value, or what `load` reads (then cached). */
  through<E, R>(key: string, load: Effect.Effect<V, E, R>): Effect.Effect<V, E, R> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const hit = this.#entries.get(key)
      if (hit !== undefined && hit.until > now) return Effect.succeed(hit.value)
      return Effect.tap(load, (value) => Effect.sync(() => this.#entries.set(key, { value, until: now + this.#ttlMs })))
    })
  }

  invalidate(key: string): void {
    this.#entries.delete(key)
  }

  invalidateAll(): void {
    this.#entries.clear()
  }
}
