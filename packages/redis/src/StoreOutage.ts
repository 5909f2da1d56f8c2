/**
 * Keeps a store on the request path from ever making a request wait on Redis. Each operation
 * gets a deadline, kept by one watch over the store's operations in flight rather than a timer
 * each; once one could not reach Redis, operations take their fallback at once
 * (without touching Redis) until a background probe finds Redis answering again, with backoff.
 * Each transition is logged once, at warning level, with its cause; every operation that could
 * not reach Redis is counted in `gateway_store_errors_total{store}`.
 */
import { Clock, Duration, Effect, Exit, Metric, Option, Result, type Scope } from "effect"
import * as DeadlineWatch from "./internal/DeadlineWatch.ts"

/**
 * How long an operation may wait on Redis. The spec allows 250 ms for the whole store call; the
 * rest is room for a busy event loop.
 */
export const DEFAULT_DEADLINE = Duration.millis(150)

/** The wait before the first probe; it doubles after each failed probe, up to {@link MAX_PROBE_INTERVAL}. */
export const FIRST_PROBE_DELAY = Duration.millis(50)

/** The longest wait between two probes while Redis stays down. */
export const MAX_PROBE_INTERVAL = Duration.seconds(1)

/**
 * Operations of `store` that could not reach it: failed, timed out, or skipped while it was down.
 *
 * @example
 * import { StoreOutage } from "@switchyard/redis"
 * import { Metric } from "effect"
 *
 * const cacheErrors = Metric.value(StoreOutage.storeErrors("cache")) // Effect<{ count: number }>
 */
export const storeErrors = (store: string): Metric.Counter<number> =>
  Metric.counter("gateway_store_errors_total", {
    description: "Store operations that could not reach the store: failed, timed out, or skipped while it was down",
    attributes: { store },
    incremental: true
  })

/** What {@link make} guards. */
export interface Options {
  /** The store's name, in logs and as the metric's `store` label: `cache`, `circuit`. */
  readonly store: string
  /** What requests do while the store is down, for the log. */
  readonly whileDown: string
  /** Answers when Redis does (a `PING`). */
  readonly ping: Effect.Effect<unknown, unknown>
  /** How long an operation may wait on Redis; {@link DEFAULT_DEADLINE} unless given. */
  readonly deadline?: Duration.Input | undefined
}

/** What to answer instead of an operation that could not reach Redis. */
export interface GuardOptions<A, E> {
  readonly fallback: A
  /**
   * The cause of an error that did not reach Redis (an outage), or `undefined` for an error Redis
   * answered with, which is passed on.
   */
  readonly unreachable: (error: E) => unknown
}

/** The guard of one store. */
export interface StoreOutage {
  /**
   * Runs `operation` within the deadline, or answers `fallback` when Redis is down, does not
   * answer in time, or was not reached.
   */
  readonly guard: <A, E, R>(operation: Effect.Effect<A, E, R>, options: GuardOptions<A, E>) => Effect.Effect<A, E, R>
}

/** A cause as one line: never the error's other fields, which may hold a command and its keys. */
const describe = (cause: unknown): string =>
  cause instanceof Error ? (cause.message === "" ? cause.name : cause.message) : String(cause)

/**
 * The outage guard of one store. The background probe runs in the current scope, so the guard
 * lives as long as the store that made it.
 *
 * @example
 * import { RedisConnection, StoreOutage } from "@switchyard/redis"
 * import { Effect } from "effect"
 * import { Redis } from "effect/persistence"
 *
 * const lookup = Effect.gen(function*() {
 *   const redis = yield* Redis.Redis
 *   const outage = yield* StoreOutage.make({ store: "cache", whileDown: "lookups are misses", ping: redis.send("PING") })
 *   const unreachable = (error: Redis.RedisError) => RedisConnection.isReply(error.cause) ? undefined : error.cause
 *   // null within 150 ms while Redis is down
 *   return yield* outage.guard(redis.send<string | null>("GET", "answer"), { fallback: null, unreachable })
 * })
 */
export const make: (options: Options) => Effect.Effect<StoreOutage, never, Scope.Scope> = Effect.fnUntraced(
  function*(options: Options) {
    const scope = yield* Effect.scope
    const deadline = Duration.fromInputUnsafe(options.deadline ?? DEFAULT_DEADLINE)
    const errors = storeErrors(options.store)
    /** When the store went down; `undefined` while it is up. */
    let downSince: number | undefined

    // any failure, defects included, is "no answer": the probe must outlive whatever Redis does
    const answers = Effect.map(
      Effect.exit(Effect.timeoutOption(options.ping, deadline)),
      (exit) => Exit.isSuccess(exit) && Option.isSome(exit.value)
    )

    const recover = Effect.gen(function*() {
      let wait = FIRST_PROBE_DELAY
      while (true) {
        yield* Effect.sleep(wait)
        if (yield* answers) break
        wait = Duration.min(Duration.times(wait, 2), MAX_PROBE_INTERVAL)
      }
      const since = downSince ?? (yield* Clock.currentTimeMillis)
      downSince = undefined
      const down = Duration.millis((yield* Clock.currentTimeMillis) - since)
      yield* Effect.logWarning(`${options.store} store: Redis answers again after ${Duration.format(down)}`)
    })

    // uninterruptible: a request cut short between the two steps would leave the store down for good
    const markDown = (cause: unknown) =>
      Effect.uninterruptible(Effect.gen(function*() {
        if (downSince !== undefined) return
        downSince = yield* Clock.currentTimeMillis
        yield* Effect.forkIn(recover, scope)
        yield* Effect.logWarning(
          `${options.store} store: Redis unreachable (${describe(cause)}); ${options.whileDown} until it answers again`
        )
      }))

    const skipped = <A>(fallback: A) => Effect.as(Metric.update(errors, 1), fallback)
    const inFlight = yield* DeadlineWatch.make(deadline)

    const guard = <A, E, R>(
      operation: Effect.Effect<A, E, R>,
      { fallback, unreachable }: GuardOptions<A, E>
    ): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        if (downSince !== undefined) return skipped(fallback)
        return Effect.flatMap(Effect.result(inFlight.bound(operation)), (result) => {
          if (Result.isSuccess(result)) {
            if (Option.isSome(result.success)) return Effect.succeed(result.success.value)
            const late = new Error(`no answer within ${Duration.format(deadline)}`)
            return Effect.andThen(markDown(late), skipped(fallback))
          }
          const cause = unreachable(result.failure)
          if (cause === undefined) return Effect.fail(result.failure)
          return Effect.andThen(markDown(cause), skipped(fallback))
        })
      })

    return { guard }
  }
)
