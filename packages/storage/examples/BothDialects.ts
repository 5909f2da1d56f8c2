import { assert, layer } from "@effect/vitest"
import { TestDatabase } from "@switchyard/storage"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(database)(`workspaces on ${name}`, (it) => {
    it.effect("holds the default workspace", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ readonly id: string }>`SELECT id FROM workspaces`
        assert.deepStrictEqual(rows.map((row) => row.id), ["00000000-0000-4000-8000-000000000000"])
      }))
  })
}
