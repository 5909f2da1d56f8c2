/**
 * Migrated databases for other packages' tests, one per dialect, each private to the layer that
 * built it: SQLite in memory, and Postgres in a schema of its own that is dropped when the layer's
 * scope closes, so test runs never see each other's rows. A test helper of this repository:
 * `@switchyard/storage/testing` resolves only under the workspace's source condition and is not
 * published.
 *
 * @example
 * ```ts
 * import { layer } from "@effect/vitest"
 * import { TestDatabase } from "@switchyard/storage/testing"
 *
 * for (const { name, layer: database } of TestDatabase.dialects) {
 *   layer(database)(`ApiKeyRepository on ${name}`, (it) => {
 *     it.effect("stores a key", () => …)
 *   })
 * }
 * ```
 */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Database, SqliteWriter } from "../index.ts"

/** The Postgres server the tests use unless `SWITCHYARD_TEST_DATABASE_URL` names another. */
export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/test"

export type TestDatabaseError = Database.DatabaseError | Config.ConfigError

/** A private, migrated in-memory SQLite database. */
export const layerSqlite: Layer.Layer<SqlClient.SqlClient | Database.Dialect, TestDatabaseError> = Database
  .layerSqlite(":memory:")

/**
 * A migrated SQLite database in a file of a new temporary directory (removed when the layer's scope
 * closes), with the writer thread on it: the embedded gateway's own arrangement.
 */
export const layerSqliteFile: Layer.Layer<
  SqlClient.SqlClient | Database.Dialect | SqliteWriter.SqliteWriter,
  TestDatabaseError
> = Layer.unwrap(
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "switchyard-test-db-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    ),
    (dir) => {
      const filename = join(dir, Database.SQLITE_FILE)
      // the thread opens the file once it is migrated (and in WAL mode), as in the gateway
      return SqliteWriter.SqliteWriter.layer({ filename }).pipe(Layer.provideMerge(Database.layerSqlite(filename)))
    }
  )
)

const postgresUrl = Config.String("SWITCHYARD_TEST_DATABASE_URL").pipe(Config.withDefault(DEFAULT_POSTGRES_URL))

/** A client whose every connection starts with `search_path` set to a new schema, dropped at scope end. */
const schemaClient = (url: string) =>
  Effect.gen(function*() {
    const schema = `switchyard_test_${randomBytes(8).toString("hex")}`
    const sql = yield* PgClient.make({
      ...Database.postgresOptions(Redacted.make(url)),
      startupParameters: { search_path: schema }
    })
    yield* Effect.acquireRelease(
      sql`CREATE SCHEMA ${sql(schema)}`,
      () =>
        sql`DROP SCHEMA ${sql(schema)} CASCADE`.pipe(
          Effect.ignore({ log: "Warn", message: `cannot drop the test schema ${schema}` })
        )
    )
    return sql
  })

/**
 * A migrated Postgres database in a fresh schema with a random name on the server at
 * `SWITCHYARD_TEST_DATABASE_URL` (default `postgres://postgres@127.0.0.1:5432/test`).
 */
export const layerPostgres: Layer.Layer<SqlClient.SqlClient | Database.Dialect, TestDatabaseError> = Layer.unwrap(
  Effect.map(postgresUrl, (url) =>
    Database.layerFromClient(
      Layer.effect(SqlClient.SqlClient, schemaClient(url)).pipe(Layer.provide(Reactivity.layer)),
      Database.Dialect.pg
    ))
)

export interface DialectUnderTest {
  readonly name: Database.DialectName
  readonly layer: Layer.Layer<SqlClient.SqlClient | Database.Dialect, TestDatabaseError>
}

/** Both dialects, to run one repository suite on each (see the example above). */
export const dialects: ReadonlyArray<DialectUnderTest> = [
  { name: "sqlite", layer: layerSqlite },
  { name: "pg", layer: layerPostgres }
]
