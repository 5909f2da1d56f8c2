/** Batches and their lines (read by `@switchyard/batches`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Batches: the object as JSON in `body`, its creator and sealed provider selection, and one row
 * per input line. A line's `result` is its output or error line; written once (the first answer
 * is kept), so request counts are counts of these rows.
 */
export const createBatches = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    caller TEXT NOT NULL,
    selection TEXT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX batches_workspace ON batches (workspace_id, position, id)`
  yield* sql`CREATE TABLE batch_lines (
    batch_id TEXT NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    custom_id TEXT NULL,
    request TEXT NULL,
    state TEXT NOT NULL,
    result TEXT NULL,
    PRIMARY KEY (batch_id, line)
  )`
})
