/**
 * Stored responses (`store`, default true), per workspace, in the gateway's database (SQLite or
 * Postgres, migration `0014_create_responses`): the response as it was answered, and the whole
 * conversation it answered (the items of the responses before it, then its own input), so that
 * `previous_response_id` continues it on any provider, and its output items by id, which an
 * `item_reference` names. Another workspace's id is a 404, as an unknown one.
 *
 * @example
 * import { ResponseStore } from "@switchyard/responses-format"
 * const kept = ResponseStore.ResponseStore.use((store) => store.get("my-workspace", "resp_1"))
 */
import { GatewayError } from "@switchyard/core"
import { ChunkedDelete, SqliteWriter } from "@switchyard/storage"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import type * as ResponseObject from "./ResponseObject.ts"

/** What `DELETE /v1/responses/{id}` answers. */
export interface Deleted {
  readonly id: string
  readonly object: "response"
  readonly deleted: true
}

/** A stored response and the conversation items it answered. */
export interface Stored {
  readonly response: ResponseObject.Response
  readonly input: ReadonlyArray<unknown>
}

type Failure = GatewayError.NotFound | GatewayError.InternalError

const Json = Schema.fromJsonString(Schema.Unknown)
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ body: Json, input_items: Json })))
const decodeItemRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ body: Json })))

const internal = <A, E extends { readonly message: string }>(
  effect: Effect.Effect<A, E>
): Effect.Effect<A, GatewayError.InternalError> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`responses: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `responses: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `no response with id "${id}"` })

export class ResponseStore extends Context.Service<ResponseStore, {
  /** Keeps `response` and `input`, the conversation it answered. */
  readonly save: (
    workspaceId: string,
    response: ResponseObject.Response,
    input: ReadonlyArray<unknown>
  ) => Effect.Effect<void, GatewayError.InternalError>
  readonly get: (workspaceId: string, id: string) => Effect.Effect<Stored, Failure>
  /** An output item of a stored response, by the item's id; undefined when none has it. */
  readonly item: (workspaceId: string, itemId: string) => Effect.Effect<unknown, GatewayError.InternalError>
  readonly delete: (workspaceId: string, id: string) => Effect.Effect<Deleted, Failure>
  /**
   * Deletes the responses created before `createdBefore` (unix seconds), with their items, in
   * every workspace: {@link SWEEP_CHUNK} the oldest at a time, each chunk its own transaction;
   * answers how many.
   */
  readonly deleteBefore: (createdBefore: number) => Effect.Effect<number, GatewayError.InternalError>
}>()("@switchyard/responses-format/ResponseStore") {
  static readonly layer: Layer.Layer<ResponseStore, never, SqlClient.SqlClient> = Layer.effect(
    ResponseStore,
    Effect.map(SqlClient.SqlClient, (sql) => make(sql))
  )

  /**
   * For the embedded SQLite database: read through the gateway's `SqlClient`, saved by the
   * database's writer thread (storage's `SqliteWriter`), so an answer's transaction no longer
   * holds the event loop; a save still completes only once it is committed, so the response's
   * id is never answered before `previous_response_id` can find it.
   */
  static readonly layerSqliteWriter: Layer.Layer<
    ResponseStore,
    never,
    SqlClient.SqlClient | SqliteWriter.SqliteWriter
  > = Layer.effect(
    ResponseStore,
    Effect.gen(function*() {
      const store = make(yield* SqlClient.SqlClient)
      const writer = yield* SqliteWriter.SqliteWriter
      return ResponseStore.of({
        ...store,
        deleteBefore: (createdBefore) =>
          ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
            internal(Effect.map(
              writer.write([
                { sql: DELETE_ITEMS_CHUNK, width: 2, values: [createdBefore, SWEEP_CHUNK] },
                { sql: DELETE_RESPONSES_CHUNK, width: 2, values: [createdBefore, SWEEP_CHUNK] }
              ]),
              ([, responses]) => responses ?? 0
            ))),
        save: (workspaceId, response, input) => {
          const items: Array<SqliteWriter.Value> = []
          for (const item of response.output) items.push(item.id, workspaceId, response.id, JSON.stringify(item))
          const row = [response.id, workspaceId, response.created_at, JSON.stringify(response), JSON.stringify(input)]
          return internal(Effect.asVoid(writer.write([
            { sql: INSERT_RESPONSE, width: row.length, values: row },
            { sql: INSERT_ITEM, width: 4, values: items }
          ])))
        }
      })
    })
  )
}

/**
 * Responses a retention sweep deletes a transaction: a chunk holds the database's write lock for
 * a few milliseconds, and other writes go between chunks (one DELETE of a day's responses would
 * hold it, and on SQLite the event loop, for as long as it takes).
 */
export const SWEEP_CHUNK = 500

// the items first, then their responses: the same chunk, the oldest by the created_at index
const OLDEST = "SELECT workspace_id, id FROM responses WHERE created_at < ? ORDER BY created_at, id LIMIT ?"
const DELETE_ITEMS_CHUNK = `DELETE FROM response_items WHERE (workspace_id, response_id) IN (${OLDEST})`
const DELETE_RESPONSES_CHUNK = `DELETE FROM responses WHERE (workspace_id, id) IN (${OLDEST})`

const INSERT_RESPONSE = "INSERT INTO responses (id, workspace_id, created_at, body, input_items) VALUES (?, ?, ?, ?, ?)"
const INSERT_ITEM = "INSERT INTO response_items (id, workspace_id, response_id, body) VALUES (?, ?, ?, ?)"

const make = (sql: SqlClient.SqlClient): ResponseStore["Service"] =>
  ResponseStore.of({
    save: (workspaceId, response, input) =>
      internal(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO responses ${
          sql.insert({
            id: response.id,
            workspace_id: workspaceId,
            created_at: response.created_at,
            body: JSON.stringify(response),
            input_items: JSON.stringify(input)
          })
        }`
        for (const item of response.output) {
          yield* sql`INSERT INTO response_items ${
            sql.insert({
              id: item.id,
              workspace_id: workspaceId,
              response_id: response.id,
              body: JSON.stringify(item)
            })
          }`
        }
      }))),
    deleteBefore: (createdBefore) =>
      ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
        internal(sql.withTransaction(Effect.gen(function*() {
          const oldest =
            sql`SELECT workspace_id, id FROM responses WHERE created_at < ${createdBefore} ORDER BY created_at, id LIMIT ${SWEEP_CHUNK}`
          yield* sql`DELETE FROM response_items WHERE (workspace_id, response_id) IN (${oldest})`
          const deleted = yield* sql`DELETE FROM responses WHERE (workspace_id, id) IN (${oldest}) RETURNING id`
          return deleted.length
        })))),
    get: (workspaceId, id) =>
      internal(
        sql`SELECT body, input_items FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
          Effect.flatMap(decodeRows)
        )
      ).pipe(
        Effect.flatMap((rows) => {
          const row = rows[0]
          // rows hold what save wrote: the response object as the gateway built it
          return row === undefined
            ? Effect.fail(notFound(id))
            : Effect.succeed({
              response: row.body as ResponseObject.Response,
              input: Array.isArray(row.input_items) ? row.input_items : []
            })
        })
      ),
    item: (workspaceId, itemId) =>
      internal(
        sql`SELECT body FROM response_items WHERE workspace_id = ${workspaceId} AND id = ${itemId}`.pipe(
          Effect.flatMap(decodeItemRows)
        )
      ).pipe(Effect.map((rows) => rows[0]?.body)),
    delete: (workspaceId, id) =>
      internal(sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql`SELECT id FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}`
        if (rows.length === 0) return false
        yield* sql`DELETE FROM response_items WHERE workspace_id = ${workspaceId} AND response_id = ${id}`
        yield* sql`DELETE FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}`
        return true
      }))).pipe(
        Effect.flatMap((deleted) =>
          deleted
            ? Effect.succeed({ id, object: "response" as const, deleted: true as const })
            : Effect.fail(notFound(id))
        )
      )
  })
