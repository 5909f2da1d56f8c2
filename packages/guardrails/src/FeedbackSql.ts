/**
 * Feedback kept in the gateway's database, so it survives restarts and is shared by replicas.
 * The store's operations have no error channel (hooks record without waiting on the answer), so
 * a storage failure is logged and becomes a defect: a 500 on the feedback routes, never a failed
 * inference request.
 */
import { SqliteWriter } from "@switchyard/storage"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { type FeedbackEntry, FeedbackStore } from "./Feedback.ts"

const Row = Schema.Struct({
  id: Schema.String,
  trace_id: Schema.String,
  value: Schema.Finite,
  weight: Schema.Finite,
  metadata: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  source: Schema.Literals(["hook", "client"]),
  hook_id: Schema.NullOr(Schema.String),
  created_at: Schema.Union([Schema.Finite, Schema.NumberFromString])
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

const toEntry = (row: typeof Row.Type): FeedbackEntry => ({
  ...row,
  created_at: new Date(row.created_at).toISOString()
})

const orDie = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>): Effect.Effect<A> =>
  effect.pipe(Effect.tapError((error) => Effect.logError(`feedback: ${error.message}`)), Effect.orDie)

/** A feedback row as it is stored. */
interface StoredRow {
  readonly id: string
  readonly workspace_id: string
  readonly trace_id: string
  readonly value: number
  readonly weight: number
  readonly metadata: string
  readonly source: "hook" | "client"
  readonly hook_id: string | null
  readonly created_at: number
}

/** The store, reading on the gateway's connection and inserting with `insert`. */
const make = (
  sql: SqlClient.SqlClient,
  insert: (row: StoredRow) => Effect.Effect<unknown, { readonly message: string }>
) =>
  FeedbackStore.of({
    record: (feedback) =>
      Effect.gen(function*() {
        const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const row: StoredRow = {
          id: randomUUID(),
          workspace_id: feedback.workspaceId,
          trace_id: feedback.traceId,
          value: feedback.value,
          weight: feedback.weight,
          metadata: JSON.stringify(feedback.metadata),
          source: feedback.source,
          hook_id: feedback.hookId,
          created_at: now
        }
        yield* insert(row)
        // as `list` reads it back: the workspace is the caller's, not part of the entry
        return toEntry({
          id: row.id,
          trace_id: row.trace_id,
          value: row.value,
          weight: row.weight,
          metadata: feedback.metadata,
          source: row.source,
          hook_id: row.hook_id,
          created_at: row.created_at
        })
      }).pipe(orDie),
    list: (workspaceId, traceId) =>
      sql`SELECT id, trace_id, value, weight, metadata, source, hook_id, created_at FROM feedback
          WHERE workspace_id = ${workspaceId} AND trace_id = ${traceId} ORDER BY created_at, id`.pipe(
        Effect.flatMap(decodeRows),
        Effect.map((rows) => rows.map(toEntry)),
        orDie
      )
  })

export const layerSql: Layer.Layer<FeedbackStore, never, SqlClient.SqlClient> = Layer.effect(
  FeedbackStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return make(sql, (row) => sql`INSERT INTO feedback ${sql.insert({ ...row })}`)
  })
)

const INSERT_ROW =
  `INSERT INTO feedback (id, workspace_id, trace_id, value, weight, metadata, source, hook_id, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`

/**
 * {@link layerSql} with each record inserted by the SQLite writer thread (`@switchyard/storage`'s
 * `SqliteWriter`, on the same database file), in turn with the request log's batches: an insert
 * never waits for the write lock the thread holds (on the gateway's connection it would wait between
 * tries, holding that connection), and runs off the event loop; a hook's feedback is one on every
 * request it judges.
 */
export const layerSqliteWriter: Layer.Layer<FeedbackStore, never, SqlClient.SqlClient | SqliteWriter.SqliteWriter> =
  Layer.effect(
    FeedbackStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const writer = yield* SqliteWriter.SqliteWriter
      return make(sql, (row) =>
        writer.write([{
          sql: INSERT_ROW,
          width: 9,
          values: [
            row.id,
            row.workspace_id,
            row.trace_id,
            row.value,
            row.weight,
            row.metadata,
            row.source,
            row.hook_id,
            row.created_at
          ]
        }]))
    })
  )
