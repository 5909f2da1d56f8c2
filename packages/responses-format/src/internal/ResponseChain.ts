/**
 * A stored response keeps its own input and the id of the response it continues
 * (`previous_response_id`), not the conversation so far; this reads the conversation back along
 * that chain, and gives the responses that continue one about to be deleted the conversation
 * they answered, so that they no longer need it.
 */
import { Effect, Schema } from "effect"
import { type SqlClient, type SqlError } from "effect/sql"

const Json = Schema.fromJsonString(Schema.Unknown)
const decodeChain = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ body: Json, input_items: Json })))
const decodeContinuations = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ id: Schema.String, previous_response_id: Schema.String, input_items: Json }))
)

/** A stored response as read back: its object, and the whole conversation it answered. */
export interface Chained {
  readonly body: unknown
  readonly input: Array<unknown>
}

const arrayOf = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []

/** The `output` of a stored response object (written by the gateway; anything else reads as none). */
const outputOf = (body: unknown): ReadonlyArray<unknown> =>
  typeof body === "object" && body !== null && "output" in body ? arrayOf(body.output) : []

/**
 * The response `id` of `workspaceId` and the conversation it answered: each response before it
 * on the chain, oldest first, adds its own input and then its output. The oldest keeps the whole
 * conversation before it (a response that continues none, or one given its conversation when the
 * response it continued was deleted, or one stored before the chain existed). Undefined when the
 * workspace has no such response.
 *
 * `CROSS JOIN` keeps SQLite's loops in that order: each step looks one response up by its id.
 * Joined the other way, its planner read every response of the workspace at each step (4.5 ms for
 * a chain of 300, against 0.3).
 */
export const read = (
  sql: SqlClient.SqlClient,
  workspaceId: string,
  id: string
): Effect.Effect<Chained | undefined, SqlError.SqlError | Schema.SchemaError> =>
  sql`WITH RECURSIVE chain (id, previous_response_id, body, input_items, depth) AS (
    SELECT id, previous_response_id, body, input_items, 0 FROM responses WHERE workspace_id = ${workspaceId} AND id = ${id}
    UNION ALL
    SELECT r.id, r.previous_response_id, r.body, r.input_items, chain.depth + 1
    FROM chain CROSS JOIN responses r
    WHERE r.id = chain.previous_response_id AND r.workspace_id = ${workspaceId}
  ) SELECT body, input_items FROM chain ORDER BY depth DESC`.pipe(
    Effect.flatMap(decodeChain),
    Effect.map((rows) => {
      const input: Array<unknown> = []
      let body: unknown = undefined
      // item by item: a long conversation's items spread as arguments could pass the stack's limit
      for (const row of rows) {
        if (body !== undefined) { for (const item of outputOf(body)) input.push(item) }
        for (const item of arrayOf(row.input_items)) input.push(item)
        body = row.body
      }
      return body === undefined ? undefined : { body, input }
    })
  )

/** A response that continues one about to be deleted, with the conversation it answered. */
export interface Detached {
  readonly id: string
  readonly previousResponseId: string
  readonly input: ReadonlyArray<unknown>
}

/**
 * The responses of `workspaceId` that continue one of `ids` and are not in `ids` themselves, each
 * with the whole conversation it answered: what each keeps once those are deleted.
 */
export const detached = (
  sql: SqlClient.SqlClient,
  workspaceId: string,
  ids: ReadonlyArray<string>
): Effect.Effect<Array<Detached>, SqlError.SqlError | Schema.SchemaError> =>
  sql`SELECT id, previous_response_id, input_items FROM responses
    WHERE workspace_id = ${workspaceId} AND previous_response_id IN ${sql.in(ids)}`.pipe(
    Effect.flatMap(decodeContinuations),
    Effect.flatMap((rows) => {
      const deleted = new Set(ids)
      return Effect.forEach(
        rows.filter((row) => !deleted.has(row.id)),
        (row) =>
          Effect.map(read(sql, workspaceId, row.previous_response_id), (previous): Detached => ({
            id: row.id,
            previousResponseId: row.previous_response_id,
            input: previous === undefined
              ? arrayOf(row.input_items)
              : [...previous.input, ...outputOf(previous.body), ...arrayOf(row.input_items)]
          }))
      )
    })
  )
