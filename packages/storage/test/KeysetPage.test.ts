import { assert, layer } from "@effect/vitest"
import { KeysetPage } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"

const Row = Schema.Struct({ id: Schema.String, position: Schema.Number })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/** Five items; positions 2 and 3 tie, so the id decides between them. */
const items = [["a", 1], ["b", 2], ["c", 2], ["d", 3], ["e", 4]] as const

const pageOf = (query: KeysetPage.Query) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const select = (where: Statement.Fragment, tail: Statement.Fragment = sql``) =>
      Effect.flatMap(sql`SELECT id, position FROM keyset_items WHERE ${where} ${tail}`, decodeRows)
    const { hasMore, rows } = yield* KeysetPage.read({
      sql,
      query,
      at: (id) => Effect.map(select(sql`id = ${id}`), ([row]) => row),
      rows: (where, order, limit) => select(where, sql`${order} LIMIT ${limit}`)
    })
    return KeysetPage.list(rows, hasMore)
  })

const ids = (page: KeysetPage.Page<{ readonly id: string }>) => page.data.map((row) => row.id).join("")

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(database)(`KeysetPage on ${name}`, (it) => {
    it.effect("pages forwards with after and backwards with before, in either order, ties broken by id", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE keyset_items (id TEXT PRIMARY KEY, position BIGINT NOT NULL)`
        for (const [id, position] of items) yield* sql`INSERT INTO keyset_items ${sql.insert({ id, position })}`

        const first = yield* pageOf({ limit: 2, order: "asc" })
        assert.deepStrictEqual([ids(first), first.first_id, first.last_id, first.has_more], ["ab", "a", "b", true])
        assert.strictEqual(ids(yield* pageOf({ limit: 2, order: "asc", after: "b" })), "cd")
        const last = yield* pageOf({ limit: 2, order: "asc", after: "d" })
        assert.deepStrictEqual([ids(last), last.has_more], ["e", false])
        assert.strictEqual(ids(yield* pageOf({ limit: 2, order: "asc", before: "d" })), "bc")
        assert.strictEqual(ids(yield* pageOf({ limit: 3, order: "desc" })), "edc")
        assert.strictEqual(ids(yield* pageOf({ limit: 2, order: "desc", after: "c" })), "ba")
        assert.strictEqual(ids(yield* pageOf({ limit: 2, order: "desc", before: "b" })), "dc")

        const unknown = yield* Effect.flip(pageOf({ limit: 2, order: "asc", before: "zz" }))
        assert.instanceOf(unknown, KeysetPage.UnknownCursor)
        if (unknown instanceof KeysetPage.UnknownCursor) {
          assert.strictEqual(KeysetPage.cursorRule(unknown, "item"), "before: no item zz in this list")
        }
      }))
  })
}
