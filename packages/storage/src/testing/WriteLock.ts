/**
 * The SQLite file's write lock held by another connection, as the writer thread holds it while it
 * commits a batch: for tests that show a store's writes wait for it off the event loop.
 */
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { DatabaseSync } from "node:sqlite"

/** What {@link underWriteLock} saw while the lock was held, and what `effect` answered after. */
export interface UnderWriteLock<A> {
  /** Whether a 50 ms timer fired within a second meanwhile: the event loop was not held up. */
  readonly eventLoopRan: boolean
  /** Whether `effect` was still waiting for the lock when the timer fired. */
  readonly waited: boolean
  readonly result: A
}

/**
 * Starts `effect` while a third connection holds the write lock of the `SqlClient`'s SQLite file
 * (`BEGIN IMMEDIATE`), lets the event loop run 50 ms (real time, under a test clock too), then
 * releases the lock and waits for `effect`.
 */
export const underWriteLock = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<UnderWriteLock<A>, E | Error, R | SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [main] = yield* sql<{ readonly file: string }>`SELECT file FROM pragma_database_list WHERE name = 'main'`
    if (main === undefined || main.file === "") return yield* Effect.fail(new Error("not an SQLite file"))
    const holder = yield* Effect.acquireRelease(
      Effect.sync(() => new DatabaseSync(main.file)),
      (holder) =>
        Effect.sync(() => {
          if (holder.isTransaction) holder.exec("ROLLBACK")
          holder.close()
        })
    )
    holder.exec("BEGIN IMMEDIATE")
    const running = yield* Effect.forkChild(effect)
    const started = Date.now()
    yield* TestClock.withLive(Effect.sleep("50 millis"))
    const eventLoopRan = Date.now() - started < 1_000
    const waited = running.pollUnsafe() === undefined
    holder.exec("COMMIT")
    return { eventLoopRan, waited, result: yield* Fiber.join(running) }
  }).pipe(Effect.scoped)
