/** Uploaded files (read by `@switchyard/files`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Uploaded files: the object as JSON in `body`, and their contents in `file_chunks` where the
 * database holds them (Postgres: every replica and worker reads them over the connection it has).
 * Chunks carry no foreign key: an upload writes them before its file row exists.
 */
export const createFiles = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE files (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    purpose TEXT NOT NULL,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX files_workspace ON files (workspace_id, position, id)`
  const bytes = sql.onDialectOrElse({ pg: () => sql.literal("BYTEA"), orElse: () => sql.literal("BLOB") })
  yield* sql`CREATE TABLE file_chunks (
    file_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data ${bytes} NOT NULL,
    PRIMARY KEY (file_id, seq)
  )`
})
