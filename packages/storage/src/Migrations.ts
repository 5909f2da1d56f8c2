/**
 * The gateway's schema, as migrations that run at start-up on SQLite and on Postgres alike.
 * Each runs once: the ids applied are recorded in `switchyard_migrations`. All pending migrations
 * run in one transaction, so one that fails leaves the database as it was.
 *
 * Append-only: a new migration takes the next id; an applied one is never edited. Columns stay
 * portable: TEXT (ids, JSON), INTEGER, BIGINT (unix seconds). Each migration is written beside
 * the others of its area (`internal/migrations/<Area>.ts`); the order they run in is `migrations`.
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
import { Effect, Layer } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { addAssistantSelection, createAssistants } from "./internal/migrations/Assistants.ts"
import { createApiKeys, createWorkspaces } from "./internal/migrations/Auth.ts"
import { createBatches } from "./internal/migrations/Batches.ts"
import { createFiles } from "./internal/migrations/Files.ts"
import { createGuardrailsAndFeedback } from "./internal/migrations/Guardrails.ts"
import { createPrompts } from "./internal/migrations/Prompts.ts"
import { createConfigs, createIntegrations, createVirtualKeys } from "./internal/migrations/ProviderAccess.ts"
import { addRequestLogHookResults, createRequestLogs } from "./internal/migrations/RequestLog.ts"
import { addResponsesCreatedAtIndex, addResponsesPrevious, createResponses } from "./internal/migrations/Responses.ts"
import { createUsageAndRateLimits, createUsageReservations } from "./internal/migrations/UsageLimits.ts"

export { DEFAULT_WORKSPACE_ID } from "./internal/migrations/Auth.ts"

/** The table that records which migrations ran. */
export const table = "switchyard_migrations"

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
  "0015_create_responses": createResponses,
  "0016_add_request_log_hook_results": addRequestLogHookResults,
  "0017_add_responses_created_at_index": addResponsesCreatedAtIndex,
  "0018_add_responses_previous": addResponsesPrevious
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
