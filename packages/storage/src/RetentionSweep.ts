/**
 * A store's retention sweep in the background: now, then every `interval`, it deletes what is
 * older than the retention period (through the store's own chunked delete). A sweep that fails is
 * logged and the next one tries again; only interruption stops it.
 *
 * @example
 * import { RetentionSweep } from "@switchyard/storage"
 * import { Duration, Effect } from "effect"
 *
 * // sessions that ended more than a week ago, swept hourly while the scope lives
 * const sweeping = (deleteEndedBefore: (epochMs: number) => Effect.Effect<number>) =>
 *   Effect.forkScoped(RetentionSweep.forever({
 *     what: "sessions",
 *     items: "sessions",
 *     interval: Duration.hours(1),
 *     deleteOlder: (nowMs) => deleteEndedBefore(nowMs - Duration.toMillis(Duration.days(7)))
 *   }))
 */
import { Cause, Clock, type Duration, Effect } from "effect"

export interface Options<E, R> {
  /** What is swept, first in its log lines (`request log`). */
  readonly what: string
  /** What a deleted row is called in the debug line (`records`). */
  readonly items: string
  readonly interval: Duration.Input
  /** Deletes what is past retention at `nowMs` (the clock's epoch milliseconds); answers how many. */
  readonly deleteOlder: (nowMs: number) => Effect.Effect<number, E, R>
}

/** The sweep, run until interrupted: fork it for as long as the store lives. */
export const forever = <E, R>(options: Options<E, R>): Effect.Effect<never, never, R> =>
  Effect.gen(function*() {
    const deleted = yield* options.deleteOlder(yield* Clock.currentTimeMillis)
    if (deleted > 0) yield* Effect.logDebug(`${options.what}: ${deleted} ${options.items} past retention deleted`)
  }).pipe(
    Effect.catchCause((cause) =>
      // an interrupted sweep stops; any other failure waits for the next
      Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning(`${options.what}: sweep failed`, cause)
    ),
    Effect.andThen(Effect.sleep(options.interval)),
    Effect.forever
  )
