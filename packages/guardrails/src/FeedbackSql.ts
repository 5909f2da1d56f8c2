/**
 * Feedback kept in the gateway's database, so it survives restarts and is shared by replicas.
 * The store's operations have no error channel (hooks record without waiting on the answer), so
 * a storage failure is logged and becomes a defect: a 500 on the feedback routes, never a failed
 * inference request.
 */
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

export const layerSql: Layer.Layer<FeedbackStore, never, SqlClient.SqlClient> = Layer.effect(
  FeedbackStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return FeedbackStore.of({
      record: (feedback) =>
        Effect.gen(function*() {
          const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          const row = {
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
          yield* sql`INSERT INTO feedback ${sql.insert(row)}`
          return toEntry({ ...row, metadata: feedback.metadata })
        }).pipe(orDie),
      list: (workspaceId, traceId) =>
        sql`SELECT id, trace_id, value, weight, metadata, source, hook_id, created_at FROM feedback
            WHERE workspace_id = ${workspaceId} AND trace_id = ${traceId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(decodeRows),
          Effect.map((rows) => rows.map(toEntry)),
          orDie
        )
    })
  })
)
