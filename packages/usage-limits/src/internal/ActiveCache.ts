import { Clock, Effect } from "effect"

/**
 * The active policies per workspace, kept a second: the stage reads them on every request, and a
 * change made on another replica is seen within that second (a change made here, at once).
 */
export class ActiveCache<A> {
  readonly #entries = new Map<string, { readonly at: number; readonly value: ReadonlyArray<A> }>()

  /**
   * The workspace's policies, from `load` only when the kept ones are a second old: `load` is a
   * function so that a hit builds no query (two SQL statements a request, ~1 KB of garbage, before).
   */
  get<E>(workspaceId: string, load: () => Effect.Effect<ReadonlyArray<A>, E>): Effect.Effect<ReadonlyArray<A>, E> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const kept = this.peek(workspaceId, now)
      if (kept !== undefined) return Effect.succeed(kept)
      return Effect.tap(load(), (value) => Effect.sync(() => this.#entries.set(workspaceId, { at: now, value })))
    })
  }

  /** The kept policies while they are under a second old at `now`, without an effect; else `undefined`. */
  peek(workspaceId: string, now: number): ReadonlyArray<A> | undefined {
    const entry = this.#entries.get(workspaceId)
    return entry !== undefined && now - entry.at < ACTIVE_TTL_MS ? entry.value : undefined
  }

  invalidate(workspaceId: string): void {
    this.#entries.delete(workspaceId)
  }
}

const ACTIVE_TTL_MS = 1_000
