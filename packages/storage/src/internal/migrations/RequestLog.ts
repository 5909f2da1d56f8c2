/** The request log (written by `@switchyard/request-log`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The request log (extensions.md, "Running it", request log): one row per inference request,
 * written in batches; `position` is the time in epoch milliseconds, which orders the list and
 * which the retention sweep deletes by. Bodies are kept only when the gateway is told to.
 */
export const createRequestLogs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE request_logs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    position BIGINT NOT NULL,
    trace_id TEXT NOT NULL,
    route TEXT NOT NULL,
    endpoint TEXT NULL,
    status INTEGER NOT NULL,
    stream INTEGER NOT NULL,
    provider TEXT NULL,
    model TEXT NULL,
    target_path TEXT NULL,
    prompt_tokens BIGINT NULL,
    completion_tokens BIGINT NULL,
    cost_usd DOUBLE PRECISION NULL,
    latency_ms DOUBLE PRECISION NOT NULL,
    first_token_ms DOUBLE PRECISION NULL,
    cache_status TEXT NULL,
    retries INTEGER NULL,
    api_key_id TEXT NULL,
    metadata TEXT NOT NULL,
    request_body TEXT NULL,
    response_body TEXT NULL
  )`
  yield* sql`CREATE INDEX request_logs_workspace ON request_logs (workspace_id, position, id)`
  yield* sql`CREATE INDEX request_logs_trace ON request_logs (workspace_id, trace_id)`
  yield* sql`CREATE INDEX request_logs_position ON request_logs (position)`
})

/** Each record's hook and guardrail results, as JSON (NULL when none ran). */
export const addRequestLogHookResults = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE request_logs ADD COLUMN hook_results TEXT NULL`
})
