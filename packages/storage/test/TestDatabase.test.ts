import { assert, describe, it } from "@effect/vitest"
import { TestDatabase } from "@switchyard/storage/testing"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { SqlClient } from "effect/sql"

const clientOf = (database: Layer.Layer<SqlClient.SqlClient, unknown>, scope: Scope.Scope) =>
  Effect.map(Layer.buildWithScope(database, scope), (context) => Context.get(context, SqlClient.SqlClient))

const insertWorkspace = (sql: SqlClient.SqlClient, id: string) =>
  sql`INSERT INTO workspaces ${sql.insert({ id, name: id, created_at: 0 })}`

const workspaceIds = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ readonly id: string }>`SELECT id FROM workspaces ORDER BY id`, (rows) => rows.map((row) => row.id))

const schemaExists = (sql: SqlClient.SqlClient, schema: string) =>
  Effect.map(sql`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${schema}`, (rows) => rows.length === 1)

describe("TestDatabase", () => {
  for (const { name, layer: database } of TestDatabase.dialects) {
    it.effect(`keeps two ${name} layers apart: rows written through one are not seen through the other`, () =>
      Effect.scoped(Effect.gen(function*() {
        const scope = yield* Effect.scope
        const first = yield* clientOf(database, scope)
        const second = yield* clientOf(database, scope)
        yield* insertWorkspace(first, "only-in-first")
        yield* insertWorkspace(second, "only-in-second")
        assert.deepStrictEqual(yield* workspaceIds(first), ["00000000-0000-4000-8000-000000000000", "only-in-first"])
        assert.deepStrictEqual(yield* workspaceIds(second), ["00000000-0000-4000-8000-000000000000", "only-in-second"])
      })))
  }

  it.effect("creates its Postgres schema with a random name and drops it when the layer's scope closes", () =>
    Effect.scoped(Effect.gen(function*() {
      const observer = yield* clientOf(TestDatabase.layerPostgres, yield* Effect.scope)
      const scope = yield* Scope.make()
      const sql = yield* clientOf(TestDatabase.layerPostgres, scope)
      const rows = yield* sql<{ readonly schema: string }>`SELECT current_schema() AS schema`
      const schema = rows[0]?.schema ?? ""
      assert.match(schema, /^switchyard_test_[0-9a-f]{16}$/)
      assert.isTrue(yield* schemaExists(observer, schema))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(yield* schemaExists(observer, schema))
    })))
})
