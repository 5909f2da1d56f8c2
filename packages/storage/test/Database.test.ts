import { assert, describe, it } from "@effect/vitest"
import { Database, Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "switchyard-database-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const build = (options: Database.DatabaseOptions) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Database.layer(options))
    return { sql: Context.get(context, SqlClient.SqlClient), dialect: Context.get(context, Database.Dialect).name }
  })

const defaultWorkspace = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly id: string }>`SELECT id FROM workspaces`, (rows) => rows.map((row) => row.id))

const testUrl = Config.String("SWITCHYARD_TEST_DATABASE_URL").pipe(
  Config.withDefault(TestDatabase.DEFAULT_POSTGRES_URL)
)

/** A schema of its own on the test server, dropped at scope end, so the app's layer can be pointed at it. */
const scratchSchema = Effect.gen(function*() {
  const url = yield* testUrl
  const schema = `switchyard_db_${randomBytes(8).toString("hex")}`
  const admin = Context.get(
    yield* Layer.build(Database.postgresClient(Database.postgresOptions(Redacted.make(url)))),
    SqlClient.SqlClient
  )
  yield* Effect.acquireRelease(
    admin`CREATE SCHEMA ${admin(schema)}`,
    () => Effect.ignore(admin`DROP SCHEMA ${admin(schema)} CASCADE`)
  )
  return { url, schema }
})

describe("Database.layer", () => {
  it.effect("without a database URL, opens a migrated SQLite file in the data dir, creating the dir", () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = join(yield* tempDir, "nested", "data")
      const { dialect, sql } = yield* build({ databaseUrl: Option.none(), dataDir })
      assert.strictEqual(dialect, "sqlite")
      assert.isTrue(existsSync(join(dataDir, Database.SQLITE_FILE)))
      assert.deepStrictEqual(yield* defaultWorkspace(sql), [Migrations.DEFAULT_WORKSPACE_ID])
    })))

  it.effect("keeps the rows of the SQLite file from one start to the next", () =>
    Effect.scoped(Effect.gen(function*() {
      const dataDir = yield* tempDir
      const options = { databaseUrl: Option.none(), dataDir }
      yield* Effect.scoped(Effect.flatMap(build(options), ({ sql }) =>
        sql`INSERT INTO workspaces ${sql.insert({ id: "w-2", name: "second", created_at: 1 })}`))
      const { sql } = yield* build(options)
      assert.deepStrictEqual(yield* defaultWorkspace(sql), [Migrations.DEFAULT_WORKSPACE_ID, "w-2"])
    })))

  it.effect("fails with a ConnectionError when the data dir cannot be created", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = join(yield* tempDir, "a-file")
      writeFileSync(file, "")
      const error = yield* Effect.flip(build({ databaseUrl: Option.none(), dataDir: join(file, "data") }))
      assert.strictEqual(error._tag, "SqlError")
      assert.include(error.message, "cannot create the data dir")
    })))

  it.effect("with a database URL, opens a migrated Postgres database (search_path given in the URL)", () =>
    Effect.scoped(Effect.gen(function*() {
      const { schema, url } = yield* scratchSchema
      const databaseUrl = Option.some(Redacted.make(`${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`))
      const { dialect, sql } = yield* build({ databaseUrl, dataDir: "/nonexistent" })
      assert.strictEqual(dialect, "pg")
      assert.deepStrictEqual(yield* sql`SELECT current_schema() AS s`, [{ s: schema }])
      assert.deepStrictEqual(yield* defaultWorkspace(sql), [Migrations.DEFAULT_WORKSPACE_ID])
    })))

  it.effect("lets replicas that start together on one Postgres database apply each migration once", () =>
    Effect.scoped(Effect.gen(function*() {
      const { schema, url } = yield* scratchSchema
      const databaseUrl = Option.some(Redacted.make(`${url}?options=${encodeURIComponent(`-c search_path=${schema}`)}`))
      const replicas = yield* Effect.all(
        Array.from({ length: 3 }, () => build({ databaseUrl, dataDir: "/nonexistent" })),
        { concurrency: "unbounded" }
      )
      const sql = replicas[0]?.sql ?? (yield* Effect.die("no replica"))
      const recorded = yield* sql`SELECT migration_id FROM ${sql(Migrations.table)}`
      assert.strictEqual(recorded.length, Object.keys(Migrations.migrations).length)
      assert.deepStrictEqual(yield* defaultWorkspace(sql), [Migrations.DEFAULT_WORKSPACE_ID])
    })))
})
