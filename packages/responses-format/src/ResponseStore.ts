/**
 * Stored responses (`store`, default true), per workspace, in the gateway's database (SQLite or
 * Postgres, migrations `0015_create_responses` and `0018_add_responses_previous`): the response as
 * it was answered, its own input and the stored response it continues (`previous_response_id`),
 * so that a later `previous_response_id` continues the whole conversation on any provider; and
 * its output items by id, which an `item_reference` names. Another workspace's id is a 404, as an
 * unknown one.
 *
 * Each response keeps only its own input, not the conversation so far: a conversation of n turns
 * would take space in n² (`internal/ResponseChain` reads it back along the chain). A response
 * that others continue is never deleted under them: a delete, or the retention sweep, first
 * gives each of those the conversation it answered.
 *
 * @example
 * import { ResponseStore } from "@switchyard/responses-format"
 * const kept = ResponseStore.ResponseStore.use((store) => store.get("my-workspace", "resp_1"))
 */
import { GatewayError } from "@switchyard/core"
import { ChunkedDelete, SqliteWriter } from "@switchyard/storage"
import { Array as Arr, Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import * as ResponseChain from "./internal/ResponseChain.ts"
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

/** The conversation a response answered, as `Conversation.expand` made it. */
export interface Answered {
  /** The stored response it continues (`previous_response_id`); null when none. */
  readonly previousResponseId: string | null
  /** The whole conversation: the previous response's, then the request's own input. */
  readonly items: ReadonlyArray<unknown>
  /** Where the request's own input starts in `items`: all a response continuing another keeps. */
  readonly inputOffset: number
}

type Failure = GatewayError.NotFound | GatewayError.InternalError

const decodeItemRows = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ body: Schema.fromJsonString(Schema.Unknown) }))
)
const decodeIds = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ workspace_id: Schema.String, id: Schema.String }))
)

const internal = <A, E extends { readonly message: string }>(
  effect: Effect.Effect<A, E>
): Effect.Effect<A, GatewayError.InternalError> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`responses: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `responses: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `no response with id "${id}"` })

/**
 * A response row: continuing its previous response with its own input, or (`whole`) with the
 * whole conversation and no previous response.
 */
const responseRow = (workspaceId: string, response: ResponseObject.Response, answered: Answered, whole: boolean) => {
  const chained = !whole && answered.previousResponseId !== null
  return {
    id: response.id,
    workspace_id: workspaceId,
    created_at: response.created_at,
    body: JSON.stringify(response),
    input_items: JSON.stringify(chained ? answered.items.slice(answered.inputOffset) : answered.items),
    previous_response_id: chained ? answered.previousResponseId : null
  }
}

/**
 * Saves continuing the previous response; if that one is gone meanwhile (the foreign key refuses
 * the row), saves the whole conversation instead: what was answered is kept either way.
 */
const chainedOrWhole = <E>(
  answered: Answered,
  save: (whole: boolean) => Effect.Effect<void, E>
): Effect.Effect<void, E> =>
  answered.previousResponseId === null ? save(true) : Effect.catch(save(false), () => save(true))

export class ResponseStore extends Context.Service<ResponseStore, {
  /** Keeps `response` and the conversation it answered. */
  readonly save: (
    workspaceId: string,
    response: ResponseObject.Response,
    answered: Answered
  ) => Effect.Effect<void, GatewayError.InternalError>
  readonly get: (workspaceId: string, id: string) => Effect.Effect<Stored, Failure>
  /** An output item of a stored response, by the item's id; undefined when none has it. */
  readonly item: (workspaceId: string, itemId: string) => Effect.Effect<unknown, GatewayError.InternalError>
  /** Deletes a response and its items; the responses continuing it keep the conversation they answered. */
  readonly delete: (workspaceId: string, id: string) => Effect.Effect<Deleted, Failure>
  /**
   * Deletes the responses created before `createdBefore` (unix seconds), with their items, in
   * every workspace: {@link SWEEP_CHUNK} the oldest at a time, each chunk its own transaction;
   * answers how many. Newer responses continuing them keep the conversation they answered.
   */
  readonly deleteBefore: (createdBefore: number) => Effect.Effect<number, GatewayError.InternalError>
}>()("@switchyard/responses-format/ResponseStore") {
  static readonly layer: Layer.Layer<ResponseStore, never, SqlClient.SqlClient> = Layer.effect(
    ResponseStore,
    Effect.map(SqlClient.SqlClient, (sql) => make(sql))
  )

  /**
   * For the embedded SQLite database: read through the gateway's `SqlClient`, saved and swept by
   * the database's writer thread (storage's `SqliteWriter`), so an answer's transaction no longer
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
      const sql = yield* SqlClient.SqlClient
      const store = make(sql)
      const writer = yield* SqliteWriter.SqliteWriter
      return ResponseStore.of({
        ...store,
        // read here, then written by the thread in one transaction: a response that came to
        // continue one of the chunk in between makes the foreign key refuse the whole write,
        // and the next sweep takes the chunk again
        deleteBefore: (createdBefore) =>
          ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
            internal(Effect.gen(function*() {
              const chunk = yield* oldest(sql, createdBefore)
              if (chunk.length === 0) return 0
              const kept = yield* detachedFrom(sql, chunk)
              const ids = JSON.stringify(chunk.map((row) => row.id))
              const [, , responses] = yield* writer.write([
                { sql: UPDATE_DETACHED, width: 3, values: detachedValues(kept) },
                { sql: DELETE_ITEMS_OF_IDS, width: 1, values: [ids] },
                { sql: DELETE_RESPONSES_OF_IDS, width: 1, values: [ids] }
              ])
              return responses ?? 0
            }))),
        save: (workspaceId, response, answered) => {
          const items: Array<SqliteWriter.Value> = []
          for (const item of response.output) items.push(item.id, workspaceId, response.id, JSON.stringify(item))
          return internal(chainedOrWhole(answered, (whole) => {
            const row = responseRow(workspaceId, response, answered, whole)
            const values = [
              row.id,
              row.workspace_id,
              row.created_at,
              row.body,
              row.input_items,
              row.previous_response_id
            ]
            return Effect.asVoid(writer.write([
              { sql: INSERT_RESPONSE, width: values.length, values },
              { sql: INSERT_ITEM, width: 4, values: items }
            ]))
          }))
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

const INSERT_RESPONSE =
  "INSERT INTO responses (id, workspace_id, created_at, body, input_items, previous_response_id) VALUES (?, ?, ?, ?, ?, ?)"
const INSERT_ITEM = "INSERT INTO response_items (id, workspace_id, response_id, body) VALUES (?, ?, ?, ?)"
// the writer thread's: the chunk's ids as one JSON array, so that one statement deletes them all
// (a response and the one continuing it in the same chunk go together, as the foreign key asks)
const IDS = "SELECT value FROM json_each(?)"
const DELETE_ITEMS_OF_IDS =
  `DELETE FROM response_items WHERE (workspace_id, response_id) IN (SELECT workspace_id, id FROM responses WHERE id IN (${IDS}))`
const DELETE_RESPONSES_OF_IDS = `DELETE FROM responses WHERE id IN (${IDS})`

/** The oldest responses created before `createdBefore`, a chunk, by the created_at index. */
const oldest = (sql: SqlClient.SqlClient, createdBefore: number) =>
  sql`SELECT workspace_id, id FROM responses WHERE created_at < ${createdBefore} ORDER BY created_at, id LIMIT ${SWEEP_CHUNK}`
    .pipe(Effect.flatMap(decodeIds))

/** The responses continuing one of `chunk` from outside it, each workspace's, with their conversations. */
const detachedFrom = (
  sql: SqlClient.SqlClient,
  chunk: ReadonlyArray<{ readonly workspace_id: string; readonly id: string }>
) => {
  const byWorkspace = Arr.groupBy(chunk, (row) => row.workspace_id)
  return Effect.map(
    Effect.forEach(
      Object.entries(byWorkspace),
      ([workspaceId, rows]) => ResponseChain.detached(sql, workspaceId, rows.map((row) => row.id))
    ),
    (groups) => groups.flat()
  )
}

/**
 * The writer thread's: each detached response's conversation kept in its row, which then continues
 * nothing, unless the row no longer continues the one it was read with.
 */
const UPDATE_DETACHED =
  "UPDATE responses SET input_items = ?, previous_response_id = NULL WHERE id = ? AND previous_response_id = ?"

const detachedValues = (rows: ReadonlyArray<ResponseChain.Detached>): Array<string> =>
  rows.flatMap((row) => [JSON.stringify(row.input), row.id, row.previousResponseId])

/** {@link UPDATE_DETACHED} on the `SqlClient`, in the caller's transaction. */
const keepDetached = (sql: SqlClient.SqlClient, rows: ReadonlyArray<ResponseChain.Detached>) =>
  Effect.forEach(
    rows,
    (row) =>
      sql`UPDATE responses SET input_items = ${JSON.stringify(row.input)}, previous_response_id = NULL
      WHERE id = ${row.id} AND previous_response_id = ${row.previousResponseId}`,
    { discard: true }
  )

const make = (sql: SqlClient.SqlClient): ResponseStore["Service"] =>
  ResponseStore.of({
    save: (workspaceId, response, answered) =>
      internal(chainedOrWhole(answered, (whole) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`INSERT INTO responses ${sql.insert(responseRow(workspaceId, response, answered, whole))}`
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
        })))),
    deleteBefore: (createdBefore) =>
      ChunkedDelete.untilShort(SWEEP_CHUNK, () =>
        internal(sql.withTransaction(Effect.gen(function*() {
          const chunk = yield* oldest(sql, createdBefore)
          if (chunk.length === 0) return 0
          yield* keepDetached(sql, yield* detachedFrom(sql, chunk))
          const ids = chunk.map((row) => row.id)
          yield* sql`DELETE FROM response_items WHERE (workspace_id, response_id) IN (
            SELECT workspace_id, id FROM responses WHERE id IN ${sql.in(ids)})`
          const deleted = yield* sql`DELETE FROM responses WHERE id IN ${sql.in(ids)} RETURNING id`
          return deleted.length
        })))),
    get: (workspaceId, id) =>
      internal(ResponseChain.read(sql, workspaceId, id)).pipe(
        Effect.flatMap((chained) =>
          // rows hold what save wrote: the response object as the gateway built it
          chained === undefined
            ? Effect.fail(notFound(id))
            : Effect.succeed({ response: chained.body as ResponseObject.Response, input: chained.input })
        )
      ),
    item: (workspaceId, itemId) =>
      internal(
        sql`SELECT body FROM response_items WHERE workspace_id = ${workspaceId} AND id = ${itemId}`.pipe(
          Effect.flatMap(decodeItemRows)
        )
      ).pipe(Effect.map((rows) => rows[0]?.body)),
    delete: (workspaceId, id) =>
      internal(
        sql.withTransaction(Effect.gen(function*() {
          const rows = yield* sql`SELECT id FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}`
          if (rows.length === 0) return false
          yield* keepDetached(sql, yield* ResponseChain.detached(sql, workspaceId, [id]))
          yield* sql`DELETE FROM response_items WHERE workspace_id = ${workspaceId} AND response_id = ${id}`
          yield* sql`DELETE FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}`
          return true
        })).pipe(
          // a response saved to continue this one while it was being deleted makes the foreign key
          // refuse the delete: read the continuations again
          Effect.retry({ times: 2 })
        )
      ).pipe(
        Effect.flatMap((deleted) =>
          deleted
            ? Effect.succeed({ id, object: "response" as const, deleted: true as const })
            : Effect.fail(notFound(id))
        )
      )
  })
