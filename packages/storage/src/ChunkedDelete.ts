/**
 * A large delete as a run of small ones: each chunk its own transaction, so it holds the
 * database's write lock (and, on SQLite through the `SqlClient`, the event loop) for a few
 * milliseconds, and other writes go between chunks. One DELETE of an hour of the request log took
 * ~4.5 ms a thousand rows on SQLite, with everything else waiting.
 *
 * @example
 * import { ChunkedDelete } from "@switchyard/storage"
 * import { Effect } from "effect"
 * import { SqlClient } from "effect/sql"
 *
 * // the sessions that ended before a time, a thousand at a time
 * const sweep = (before: number) =>
 *   Effect.flatMap(SqlClient.SqlClient, (sql) =>
 *     ChunkedDelete.untilShort(1_000, () =>
 *       Effect.map(
 *         sql`DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE ended_at < ${before} LIMIT 1000) RETURNING id`,
 *         (rows) => rows.length
 *       )))
 */
import { Effect } from "effect"

/**
 * Runs `deleteChunk` (which deletes at most `size` rows and answers how many it deleted) until a
 * chunk comes back short of `size`; answers the rows deleted in all.
 */
export const untilShort = <E, R>(
  size: number,
  deleteChunk: () => Effect.Effect<number, E, R>
): Effect.Effect<number, E, R> => {
  const from = (deleted: number): Effect.Effect<number, E, R> =>
    Effect.flatMap(deleteChunk(), (chunk) => chunk < size ? Effect.succeed(deleted + chunk) : from(deleted + chunk))
  return from(0)
}
