/**
 * The `batches` table: its rows, how they decode, and the reads and state changes that creating,
 * validating, running and finalizing a batch share.
 */
import { GatewayError, RandomBytes } from "@switchyard/core"
import { Batch, StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Effect, Option, Schema } from "effect"
import type { SqlClient, SqlError, Statement } from "effect/sql"

/** The principal a batch was created by: its lines run as them. */
export const Caller = Schema.Struct({
  keyId: Schema.String,
  scopes: Schema.Array(StoredObjectRequests.Scope),
  expiresAt: Schema.optionalKey(Schema.Number)
})
export type Caller = typeof Caller.Type

/**
 * A new object id: `batch_…` for a batch, `batch_req_…` for one line's request; time-ordered
 * (`RandomBytes.timeOrderedHex`) so that indexes on ids grow at their end, and cut from core's pool
 * of random bytes (a batch makes one per line).
 */
export const newId = (prefix: "batch" | "batch_req"): string => `${prefix}_${RandomBytes.timeOrderedHex()}`

/** The time now in unix seconds, as objects carry it. */
export const unix = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/** A position or a count as a dialect may return it: a number or a numeric string. */
export const Position = Schema.Union([Schema.Finite, Schema.NumberFromString])
const StoredBatch = Schema.fromJsonString(Batch.Batch)
const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  position: Position,
  body: StoredBatch
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
/** What running a batch's lines needs of its row: workspace, object, creator and sealed selection. */
export const RunRow = Schema.Struct({
  workspace_id: Schema.String,
  body: StoredBatch,
  caller: Schema.fromJsonString(Caller),
  selection: Schema.String
})
const decodeRunRows = Schema.decodeUnknownEffect(Schema.Array(RunRow))
const CountRow = Schema.Struct({ state: Schema.String, n: Position })
const decodeCountRows = Schema.decodeUnknownEffect(Schema.Array(CountRow))
/** The object as its `body` column holds it. */
export const encodeBatch = Schema.encodeEffect(StoredBatch)

/** A database or decoding failure: logged, and answered as the gateway's own 500. */
export const internal = <A, R>(
  effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
): Effect.Effect<A, GatewayError.InternalError, R> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`batches: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `batches: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `no batch ${id}` })

/** The reads and state changes of the `batches` table. */
export const make = (sql: SqlClient.SqlClient) => {
  const select = (condition: Statement.Fragment, tail: Statement.Fragment = sql``) =>
    internal(
      sql`SELECT id, workspace_id, position, body FROM batches WHERE ${condition} ${tail}`.pipe(
        Effect.flatMap(decodeRows)
      )
    )

  const counts = (id: string) =>
    internal(
      sql`SELECT state, COUNT(*) AS n FROM batch_lines WHERE batch_id = ${id} GROUP BY state`.pipe(
        Effect.flatMap(decodeCountRows)
      )
    ).pipe(Effect.map((rows) => {
      const of = (state: string) => Number(rows.find((row) => row.state === state)?.n ?? 0)
      return {
        total: of("pending") + of("completed") + of("failed"),
        completed: of("completed"),
        failed: of("failed")
      }
    }))

  /** The stored object with its current request counts. */
  const withCounts = (batch: Batch.Batch) =>
    Effect.map(counts(batch.id), (request_counts): Batch.Batch => ({ ...batch, request_counts }))

  const find = (workspaceId: string, id: string) =>
    Effect.flatMap(
      select(sql`workspace_id = ${workspaceId} AND id = ${id}`),
      ([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(row.body)
    )

  /** Writes the batch's new state if it is still in one of `from` (another process may have moved it). */
  const transition = (batch: Batch.Batch, from: ReadonlyArray<Batch.BatchStatus>) =>
    internal(Effect.gen(function*() {
      const body = yield* encodeBatch(batch)
      const rows = yield* sql`UPDATE batches SET ${sql.update({ status: batch.status, body })}
        WHERE id = ${batch.id} AND status IN ${sql.in(from)} RETURNING id`
      return rows.length > 0
    }))

  const runRow = (batchId: string) =>
    internal(
      sql`SELECT workspace_id, body, caller, selection FROM batches WHERE id = ${batchId}`.pipe(
        Effect.flatMap(decodeRunRows)
      )
    ).pipe(Effect.map((rows) => Option.fromUndefinedOr(rows[0])))

  return { select, counts, withCounts, find, transition, runRow }
}

export type BatchStore = ReturnType<typeof make>
