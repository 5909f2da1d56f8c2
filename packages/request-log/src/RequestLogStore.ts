/**
 * Where the request log's records are kept: the gateway's database (SQLite or Postgres, table
 * `request_logs`, migrations 0013 and 0016). Written by RequestLog's batches, read by `GET /v1/logs`, and
 * swept of records older than the retention period.
 */
import { GatewayError, RandomBytes } from "@switchyard/core"
import { ChunkedDelete, KeysetPage, SqliteWriter } from "@switchyard/storage"
import { Array as Arr, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { v7 as timeOrderedId } from "uuid"
import type { LogQuery } from "./LogQuery.ts"
import * as LogRecord from "./LogRecord.ts"
import type { LogRows } from "./LogRows.ts"

/**
 * Record ids are UUIDv7: time-ordered, so each one lands at the end of the primary key's index.
 * Random ids (v4) land anywhere in it, and on SQLite made each record cost ~50 µs of CPU instead
 * of ~9 once the table held a few tens of thousands of rows (measured with the trace ids, which are
 * time-ordered too: RequestContext.generateTraceId). Their random bits are cut from core's pool
 * (RandomBytes): the library's own source asks the system for 16 bytes an id. On the embedded
 * SQLite database the writer thread makes them (storage's SqliteWriter), off the event loop.
 */
const newId = (): string => timeOrderedId({ random: RandomBytes.take(16) })

/** Rows per INSERT: far below either dialect's limit of bound parameters. */
const ROWS_PER_INSERT = 100

export class RequestLogStore extends Context.Service<RequestLogStore, {
  /**
   * Writes a batch of rows; the store gives each its id. On SQLite's writer thread the batch's
   * bytes are handed over: the batch is not written twice.
   */
  readonly write: (rows: LogRows) => Effect.Effect<void, SqlError.SqlError | SqliteWriter.WriterThreadError>
  readonly list: (
    workspaceId: string,
    query: LogQuery
  ) => Effect.Effect<KeysetPage.Page<LogRecord.LogRecord>, GatewayError.InvalidRequest | GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<LogRecord.LogRecord, GatewayError.NotFound | GatewayError.InternalError>
  /**
   * Deletes the records received before `epochMs`, {@link SWEEP_CHUNK} at a time, each chunk its
   * own transaction; answers how many.
   */
  readonly deleteBefore: (epochMs: number) => Effect.Effect<number, SqlError.SqlError | SqliteWriter.WriterThreadError>
}>()("@switchyard/request-log/RequestLogStore") {
  static readonly layerSql: Layer.Layer<RequestLogStore, never, SqlClient.SqlClient> = Layer.effect(
    RequestLogStore,
    Effect.map(SqlClient.SqlClient, (sql) => make(sql))
  )

  /**
   * For the embedded SQLite database: read through the gateway's `SqlClient`, written by the
   * database's writer thread (storage's `SqliteWriter`), off the event loop, which also gives each
   * record its id.
   */
  static readonly layerSqliteWriter: Layer.Layer<
    RequestLogStore,
    never,
    SqlClient.SqlClient | SqliteWriter.SqliteWriter
  > = Layer.effect(
    RequestLogStore,
    Effect.gen(function*() {
      const store = make(yield* SqlClient.SqlClient)
      const writer = yield* SqliteWriter.SqliteWriter
      return RequestLogStore.of({
        ...store,
        deleteBefore: (epochMs) =>
          ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
            Effect.map(
              writer.write([{ sql: DELETE_CHUNK, width: 2, values: [epochMs, SWEEP_CHUNK] }]),
              ([deleted]) => deleted ?? 0
            )),
        write: (rows) =>
          rows.count === 0 ? Effect.void : Effect.asVoid(
            writer.write([{
              sql: INSERT_WITH_NEW_ID,
              width: LogRecord.COLUMNS.length,
              bytes: rows.bytes,
              length: rows.length,
              later: rows.laterValues(),
              newId: true
            }])
          )
      })
    })
  )
}

/**
 * Rows a retention sweep deletes a transaction. An hour of records went in one DELETE before: on
 * SQLite that held the event loop ~4.5 ms a thousand rows (measured with the log's indexes), so a
 * gateway serving 100 requests a second stopped for ~1.6 s an hour. A chunk of a thousand rows
 * holds the database's write lock for a few milliseconds, and other writes go between chunks.
 */
export const SWEEP_CHUNK = 1_000

// the oldest first, by the position index, a chunk at a time
const DELETE_CHUNK =
  "DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE position < ? ORDER BY position LIMIT ?)"

/** One record, its id bound first by the writer thread. */
const INSERT_WITH_NEW_ID = `INSERT INTO request_logs (id, ${LogRecord.COLUMNS.join(", ")}) VALUES (?, ${
  LogRecord.COLUMNS.map(() => "?").join(", ")
})`

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(LogRecord.Row))

/** A read that failed is the gateway's own failure: logged, and a 500 in the envelope. */
const internal = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.tapError((error) => Effect.logError(`request log: ${error.message}`)),
    Effect.mapError(() => new GatewayError.InternalError({ message: "the request log could not be read" }))
  )

const make = (sql: SqlClient.SqlClient): RequestLogStore["Service"] => {
  const select = (where: Statement.Fragment, tail: Statement.Fragment = sql``) =>
    internal(sql`SELECT * FROM request_logs WHERE ${where} ${tail}`.pipe(Effect.flatMap(decodeRows)))

  const filters = (workspaceId: string, query: LogQuery): Statement.Fragment => {
    const conditions: Array<Statement.Fragment> = [sql`workspace_id = ${workspaceId}`]
    if (query.trace_id !== undefined) conditions.push(sql`trace_id = ${query.trace_id}`)
    if (query.status !== undefined) conditions.push(sql`status = ${query.status}`)
    if (query.provider !== undefined) conditions.push(sql`provider = ${query.provider}`)
    if (query.model !== undefined) conditions.push(sql`model = ${query.model}`)
    if (query.api_key_id !== undefined) conditions.push(sql`api_key_id = ${query.api_key_id}`)
    if (query.from !== undefined) conditions.push(sql`position >= ${query.from * 1000}`)
    // `to` names a second: every record within it is included
    if (query.to !== undefined) conditions.push(sql`position < ${(query.to + 1) * 1000}`)
    return sql.and(conditions)
  }

  return RequestLogStore.of({
    // one transaction a batch: on SQLite one commit (and its fsync, on the event loop) instead of one per INSERT
    write: (batch) =>
      sql.withTransaction(Effect.forEach(
        chunksOf(batch.toRows(newId), ROWS_PER_INSERT),
        (rows) =>
          Arr.isArrayNonEmpty(rows) ? Effect.asVoid(sql`INSERT INTO request_logs ${sql.insert(rows)}`) : Effect.void,
        { discard: true }
      )),
    list: (workspaceId, query) =>
      Effect.gen(function*() {
        const where = filters(workspaceId, query)
        const { hasMore, rows } = yield* KeysetPage.read({
          sql,
          query,
          at: (id) => Effect.map(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) => row),
          rows: (cursor, order, limit) => select(sql`${where} AND ${cursor}`, sql`${order} LIMIT ${limit}`)
        }).pipe(
          Effect.catchTag("UnknownCursor", (cursor) =>
            Effect.fail(
              new GatewayError.InvalidRequest({
                message: KeysetPage.cursorRule(cursor, "request log record"),
                param: cursor.field
              })
            ))
        )
        return KeysetPage.list(rows.map(LogRecord.fromRow), hasMore)
      }),
    get: (workspaceId, id) =>
      Effect.flatMap(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
        row === undefined
          ? Effect.fail(new GatewayError.NotFound({ message: `no request log record ${id}` }))
          : Effect.succeed(LogRecord.fromRow(row))),
    deleteBefore: (epochMs) =>
      ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
        Effect.map(
          sql`DELETE FROM request_logs WHERE id IN (SELECT id FROM request_logs WHERE position < ${epochMs} ORDER BY position LIMIT ${SWEEP_CHUNK}) RETURNING id`,
          (rows) => rows.length
        ))
  })
}

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const chunks: Array<Array<A>> = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}
