/**
 * The gateway's schema, as migrations that run at start-up on SQLite and on Postgres alike.
 * Each runs once: the ids applied are recorded in `switchyard_migrations`. All pending migrations
 * run in one transaction, so one that fails leaves the database as it was.
 *
 * Append-only: a new migration takes the next id; an applied one is never edited. Columns stay
 * portable: TEXT (ids, JSON), INTEGER, BIGINT (unix seconds).
 *
 * @example
 * ```ts
 * import { Migrations, SqliteClient } from "@switchyard/storage"
 * import { Effect } from "effect"
 *
 * // [[1, "create_workspaces"], [2, "create_api_keys"], …] the first time, [] after
 * const applied = Migrations.run.pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" })))
 * ```
 */
import { Clock, Effect, Layer } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"

/** The table that records which migrations ran. */
export const table = "switchyard_migrations"

/** The workspace of the admin key and of everything created before workspaces are assigned. */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000000"

const createWorkspaces = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`
  const createdAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  yield* sql`INSERT INTO workspaces ${sql.insert({ id: DEFAULT_WORKSPACE_ID, name: "Default", created_at: createdAt })}`
})

const createApiKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NULL,
    revoked_at BIGINT NULL,
    last_used_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX api_keys_workspace_id ON api_keys (workspace_id)`
})

const createIntegrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    slug TEXT NOT NULL,
    provider TEXT NOT NULL,
    name TEXT NULL,
    credentials TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT NULL,
    UNIQUE (workspace_id, slug)
  )`
})

const createVirtualKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE virtual_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    provider TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    credentials TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX virtual_keys_workspace_id ON virtual_keys (workspace_id)`
})

const createConfigs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE configs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    config TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX configs_workspace_id ON configs (workspace_id)`
})

const createGuardrailsAndFeedback = Effect.gen(function*() {
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

const createUsageAndRateLimits = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE usage_limit_policies (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    organisation_id TEXT NOT NULL,
    name TEXT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    conditions TEXT NOT NULL,
    group_by TEXT NOT NULL,
    credit_limit DOUBLE PRECISION NOT NULL,
    alert_threshold DOUBLE PRECISION NULL,
    periodic_reset TEXT NULL,
    epoch INTEGER NOT NULL,
    reset_at BIGINT NULL,
    created_at BIGINT NOT NULL,
    last_updated_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX usage_limit_policies_workspace ON usage_limit_policies (workspace_id, status)`
  yield* sql`CREATE TABLE rate_limit_policies (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NULL,
    type TEXT NOT NULL,
    unit TEXT NOT NULL,
    value INTEGER NOT NULL,
    status TEXT NOT NULL,
    conditions TEXT NOT NULL,
    group_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_updated_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX rate_limit_policies_workspace ON rate_limit_policies (workspace_id, status)`
  yield* sql`CREATE TABLE usage_counters (
    counter_key TEXT PRIMARY KEY,
    policy_id TEXT NOT NULL,
    value_key TEXT NOT NULL,
    usage DOUBLE PRECISION NOT NULL,
    reserved DOUBLE PRECISION NOT NULL,
    alerted INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX usage_counters_policy ON usage_counters (policy_id)`
})

const createPrompts = Effect.gen(function*() {
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

/**
 * Assistants, threads and their messages, runs and run steps: each object is kept whole as JSON
 * (`body`), with the columns lists and lookups need. `position` orders a list (seconds alone tie).
 */
const createAssistants = Effect.gen(function*() {
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
 * Uploaded files: the object as JSON in `body`, and their contents in `file_chunks` where the
 * database holds them (Postgres: every replica and worker reads them over the connection it has).
 * Chunks carry no foreign key: an upload writes them before its file row exists.
 */
const createFiles = Effect.gen(function*() {
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

/**
 * Batches: the object as JSON in `body`, its creator and sealed provider selection, and one row
 * per input line. A line's `result` is its output or error line; written once (the first answer
 * is kept), so request counts are counts of these rows.
 */
const createBatches = Effect.gen(function*() {
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

/**
 * An assistant's own provider selection (extensions.md: `provider`/`integration`/`config` on
 * `POST /v1/assistants`), sealed like a thread's: a config may hold keys.
 */
const addAssistantSelection = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE assistants ADD COLUMN selection TEXT NULL`
})

/**
 * One row per open reservation of the shared usage counters (`UsageCounters.layerSql`), with the
 * time its lease lapses: a reservation whose process died before settling is given back by the
 * next reservation on its counter instead of shrinking the budget until the period ends.
 */
const createUsageReservations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE usage_reservations (
    counter_key TEXT NOT NULL,
    reservation_id TEXT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (counter_key, reservation_id)
  )`
  yield* sql`CREATE INDEX usage_reservations_expiry ON usage_reservations (counter_key, expires_at)`
})

/**
 * Stored responses of the Responses API (`store`): the response as answered and the conversation
 * it answered (both JSON), and its output items by id, which an `item_reference` names.
 */
const createResponses = Effect.gen(function*() {
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
 * The request log (extensions.md, "Running it", request log): one row per inference request,
 * written in batches; `position` is the time in epoch milliseconds, which orders the list and
 * which the retention sweep deletes by. Bodies are kept only when the gateway is told to.
 */
const createRequestLogs = Effect.gen(function*() {
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

/** Every migration, keyed `<id>_<name>`; ids only grow. */
export const migrations: Readonly<Record<string, Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>>> = {
  "0001_create_workspaces": createWorkspaces,
  "0002_create_api_keys": createApiKeys,
  "0003_create_integrations": createIntegrations,
  "0004_create_virtual_keys": createVirtualKeys,
  "0005_create_configs": createConfigs,
  "0006_create_guardrails_and_feedback": createGuardrailsAndFeedback,
  "0007_create_usage_and_rate_limits": createUsageAndRateLimits,
  "0008_create_prompts": createPrompts,
  "0009_create_assistants": createAssistants,
  "0010_create_files": createFiles,
  "0011_create_batches": createBatches,
  "0012_add_assistant_selection": addAssistantSelection,
  "0013_create_request_logs": createRequestLogs,
  "0014_create_usage_reservations": createUsageReservations,
  "0015_create_responses": createResponses
}

const runMigrator = Migrator.make({})

/** Applies the pending migrations and returns the `[id, name]` of each one it ran. */
export const run: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = runMigrator({ loader: Migrator.fromRecord(migrations), table })

/** Runs the pending migrations while the layer is built. */
export const layer: Layer.Layer<never, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> = Layer
  .effectDiscard(run)
