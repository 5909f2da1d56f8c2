/** Stored responses (read by `@switchyard/responses-format`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Stored responses of the Responses API (`store`): the response as answered and the conversation
 * it answered (both JSON), and its output items by id, which an `item_reference` names.
 */
export const createResponses = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE responses (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL,
    input_items TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX responses_workspace ON responses (workspace_id, id)`
  yield* sql`CREATE TABLE response_items (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    response_id TEXT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX response_items_response ON response_items (workspace_id, response_id)`
})

/**
 * The retention sweep deletes stored responses oldest first (`created_at`, then `id`, a total
 * order), a chunk at a time: without this index each chunk would read the whole table.
 */
export const addResponsesCreatedAtIndex = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX responses_created_at ON responses (created_at, id)`
})

/**
 * A response continuing another (`previous_response_id`) keeps the other's id and only its own
 * input, rather than a copy of the whole conversation so far: a conversation of n turns took
 * space in n², and each turn wrote all of it again. The conversation is read back along the
 * chain. The reference is a foreign key, so a response another continues is never deleted under
 * it: a delete first gives each continuation the conversation it answered (ResponseStore).
 * Rows written before this keep their whole conversation and no previous id, which reads the same.
 */
export const addResponsesPrevious = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE responses ADD COLUMN previous_response_id TEXT NULL REFERENCES responses (id)`
  yield* sql`CREATE INDEX responses_previous ON responses (previous_response_id)`
})
