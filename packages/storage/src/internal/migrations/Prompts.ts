/** Prompt templates (read by `@switchyard/prompts`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Prompts and each of their versions. */
export const createPrompts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE prompts (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    latest_version INTEGER NOT NULL,
    published_version INTEGER NOT NULL,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX prompts_workspace ON prompts (workspace_id, position, id)`
  yield* sql`CREATE TABLE prompt_versions (
    prompt_id TEXT NOT NULL REFERENCES prompts (id),
    version INTEGER NOT NULL,
    definition TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (prompt_id, version)
  )`
})
