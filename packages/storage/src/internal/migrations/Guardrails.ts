/** Stored guardrails and feedback (read by `@switchyard/guardrails`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Guardrails by workspace, and feedback by trace id. */
export const createGuardrailsAndFeedback = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE guardrails (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX guardrails_workspace_id ON guardrails (workspace_id)`
  yield* sql`CREATE TABLE feedback (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    value DOUBLE PRECISION NOT NULL,
    weight DOUBLE PRECISION NOT NULL,
    metadata TEXT NOT NULL,
    source TEXT NOT NULL,
    hook_id TEXT NULL,
    created_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX feedback_trace ON feedback (workspace_id, trace_id)`
})
