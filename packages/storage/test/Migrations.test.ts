import { assert, layer } from "@effect/vitest"
import { Database, Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Schema } from "effect"
import { Migrator, SqlClient } from "effect/sql"

const TABLES = [
  "workspaces",
  "api_keys",
  "integrations",
  "virtual_keys",
  "configs",
  "prompts",
  "prompt_versions",
  "assistants",
  "threads",
  "thread_messages",
  "thread_runs",
  "run_steps",
  "files",
  "file_chunks",
  "batches",
  "batch_lines",
  "request_logs",
  "usage_counters",
  "usage_reservations",
  "responses",
  "response_items"
]

const Workspace = Schema.Struct({ id: Schema.String, name: Schema.String, created_at: Schema.Number })

const apiKey = (id: string, workspaceId: string) => ({
  id,
  workspace_id: workspaceId,
  name: "ci",
  key_hash: `hash-${id}`,
  key_prefix: "sy-",
  scopes: JSON.stringify(["completions"]),
  created_at: 1_767_225_600,
  expires_at: 4_102_444_800,
  revoked_at: null,
  last_used_at: null
})

const integration = (id: string, slug: string) => ({
  id,
  workspace_id: Migrations.DEFAULT_WORKSPACE_ID,
  slug,
  provider: "openai",
  name: null,
  credentials: "{}",
  settings: "{}",
  created_at: 1,
  updated_at: 1,
  deleted_at: null
})

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(database)(`Migrations on ${name}`, (it) => {
    it.effect("creates every table of the first migrations", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (const table of TABLES) {
          assert.deepStrictEqual(yield* sql`SELECT count(*) AS n FROM ${sql(table)} WHERE 1 = 0`, [{ n: 0 }], table)
        }
      }))

    it.effect("provides the dialect it speaks", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* Database.Dialect).name, name)
      }))

    it.effect("inserts the default workspace", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT id, name, created_at FROM workspaces`
        const workspaces = yield* Schema.decodeUnknownEffect(Schema.Array(Workspace))(rows)
        assert.deepStrictEqual(workspaces.map((w) => w.id), [Migrations.DEFAULT_WORKSPACE_ID])
      }))

    it.effect("records each migration once and runs none when run again", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual(yield* Migrations.run, [])
        assert.deepStrictEqual(yield* Migrations.run, [])
        const recorded = yield* sql<{ readonly migration_id: number }>`SELECT migration_id FROM ${
          sql(Migrations.table)
        } ORDER BY migration_id`
        assert.deepStrictEqual(
          recorded.map((row) => row.migration_id),
          Object.keys(Migrations.migrations).map((key) => Number(key.slice(0, 4)))
        )
      }))

    it.effect("reads timestamps past 2038 back as numbers", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO api_keys ${sql.insert(apiKey("k-time", Migrations.DEFAULT_WORKSPACE_ID))}`
        const rows = yield* sql`SELECT created_at, expires_at, revoked_at FROM api_keys WHERE id = ${"k-time"}`
        assert.deepStrictEqual(rows, [{ created_at: 1_767_225_600, expires_at: 4_102_444_800, revoked_at: null }])
      }))

    it.effect("rejects a key of a workspace that does not exist", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const error = yield* Effect.flip(
          sql`INSERT INTO api_keys ${sql.insert(apiKey("k-orphan", "no-such-workspace"))}`
        )
        assert.strictEqual(error.reason._tag, "ConstraintError")
      }))

    it.effect("rejects a second integration with the same slug in a workspace as a UniqueViolation", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO integrations ${sql.insert(integration("i-1", "openai-main"))}`
        const error = yield* Effect.flip(sql`INSERT INTO integrations ${sql.insert(integration("i-2", "openai-main"))}`)
        assert.strictEqual(error.reason._tag, "UniqueViolation")
      }))

    it.effect("rolls back every pending migration when one of them fails", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const failing = Migrator.make({})({
          table: "failing_migrations",
          loader: Migrator.fromRecord({
            "1_create_scratch": Effect.asVoid(sql`CREATE TABLE scratch (id TEXT PRIMARY KEY)`),
            "2_fail": Effect.asVoid(sql`INSERT INTO no_such_table (id) VALUES (${"x"})`)
          })
        })
        const error = yield* Effect.flip(failing)
        assert.strictEqual(error._tag, "MigrationError")
        assert.include(error.message, "2_fail")
        const scratch = yield* Effect.flip(sql`SELECT id FROM scratch`)
        assert.strictEqual(scratch._tag, "SqlError")
        assert.deepStrictEqual(yield* sql`SELECT count(*) AS n FROM failing_migrations`, [{ n: 0 }])
      }))
  })
}
