/** Assistants and threads (read by `@switchyard/assistants`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Assistants, threads and their messages, runs and run steps: each object is kept whole as JSON
 * (`body`), with the columns lists and lookups need. `position` orders a list (seconds alone tie).
 */
export const createAssistants = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE assistants (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX assistants_workspace ON assistants (workspace_id, position, id)`
  yield* sql`CREATE TABLE threads (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    selection TEXT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE TABLE thread_messages (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    run_id TEXT NULL,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX thread_messages_thread ON thread_messages (thread_id, position, id)`
  yield* sql`CREATE TABLE thread_runs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    thread_id TEXT NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    status TEXT NOT NULL,
    lease_until BIGINT NULL,
    caller TEXT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX thread_runs_thread ON thread_runs (thread_id, position, id)`
  yield* sql`CREATE INDEX thread_runs_status ON thread_runs (status, lease_until)`
  yield* sql`CREATE TABLE run_steps (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    run_id TEXT NOT NULL REFERENCES thread_runs (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL
  )`
  yield* sql`CREATE INDEX run_steps_run ON run_steps (run_id, position, id)`
})

/**
 * An assistant's own provider selection (extensions.md: `provider`/`integration`/`config` on
 * `POST /v1/assistants`), sealed like a thread's: a config may hold keys.
 */
export const addAssistantSelection = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE assistants ADD COLUMN selection TEXT NULL`
})
