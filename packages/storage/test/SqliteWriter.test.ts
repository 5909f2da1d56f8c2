/**
 * The writer thread on a SQLite file: a write's statements commit together, read back on the
 * gateway's own connection once the write succeeds; a write that fails part way leaves nothing of
 * itself and fails with SQLite's reason, and the thread goes on; a stopped thread fails every write.
 */
import { assert, describe, it } from "@effect/vitest"
import { RowBytes, SqliteWriter } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Exit, Logger, Result, Scope } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { validate, version } from "uuid"

const createNotes = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.andThen(
      sql`CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, n INTEGER NULL)`,
      sql`CREATE TABLE tags (note_id TEXT NOT NULL REFERENCES notes (id), tag TEXT NOT NULL)`
    )
)

const notes = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<
      { readonly id: string; readonly body: string; readonly n: number | null }
    >`SELECT id, body, n FROM notes ORDER BY id`
)

const INSERT_NOTE = "INSERT INTO notes (id, body, n) VALUES (?, ?, ?)"
const INSERT_TAG = "INSERT INTO tags (note_id, tag) VALUES (?, ?)"

describe("SqliteWriter", () => {
  it.effect("answers the rows each of a write's statements changed", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["a", "x", 1, "b", "x", 2, "c", "y", 3] }])
      assert.deepStrictEqual(
        yield* writer.write([
          { sql: "UPDATE notes SET n = n + 1 WHERE body = ?", width: 1, values: ["x"] },
          { sql: "DELETE FROM notes WHERE body = ?", width: 1, values: ["none", "y"] }
        ]),
        [2, 1]
      )
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("commits every statement of a write together, each run once a row, read back on the SqlClient", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      const changed = yield* writer.write([
        { sql: INSERT_NOTE, width: 3, values: ["a", "one", 1, "b", "two", null] },
        { sql: INSERT_TAG, width: 2, values: ["a", "x", "a", "y", "b", "z"] },
        // a statement with no rows runs no time
        { sql: INSERT_TAG, width: 2, values: [] }
      ])
      // two notes, three tags, and no row of the empty statement
      assert.deepStrictEqual(changed, [2, 3, 0])
      assert.deepStrictEqual(yield* notes, [{ id: "a", body: "one", n: 1 }, { id: "b", body: "two", n: null }])
      const sql = yield* SqlClient.SqlClient
      const tags = yield* sql<{ readonly tag: string }>`SELECT tag FROM tags ORDER BY tag`
      assert.deepStrictEqual(tags.map((row) => row.tag), ["x", "y", "z"])
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("gives each row a new time-ordered id (UUIDv7) when asked", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      const bodies = Array.from({ length: 300 }, (_, index) => String(index).padStart(3, "0"))
      const before = Date.now()
      yield* writer.write([{
        sql: "INSERT INTO notes (id, body) VALUES (?, ?)",
        width: 1,
        values: bodies,
        newId: true
      }])
      const rows = yield* notes
      assert.strictEqual(rows.length, 300)
      assert.strictEqual(new Set(rows.map((row) => row.id)).size, 300)
      const after = Date.now()
      for (const row of rows) {
        assert.isTrue(validate(row.id) && version(row.id) === 7, row.id)
        // the id starts with the milliseconds it was made at
        const madeAt = Number.parseInt(row.id.replaceAll("-", "").slice(0, 12), 16)
        assert.isTrue(madeAt >= before && madeAt <= after, `${row.id} made at ${madeAt}`)
      }
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("writes rows handed over as bytes, with their values left for later, and new ids", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      const rows = new RowBytes.RowWriter(2)
      for (const [body, n] of [["same", 1], ["same", null], ["naïve ☃", 3]] as const) {
        rows.value(body)
        rows.value(n)
      }
      rows.value("x")
      rows.later()
      const changed = yield* writer.write([{
        sql: INSERT_NOTE,
        width: 2,
        bytes: rows.bytes,
        length: rows.length,
        later: [4],
        newId: true
      }])
      assert.deepStrictEqual(changed, [4])
      // handed over, not copied: the buffer is the thread's now
      assert.strictEqual(rows.bytes.buffer.byteLength, 0)
      const kept = yield* notes
      // ids made in one millisecond are not in the rows' order: compared as a set
      const byText = (rows: ReadonlyArray<readonly [string, number | null]>) =>
        rows.map((row) => JSON.stringify(row)).sort()
      assert.deepStrictEqual(
        byText(kept.map(({ body, n }) => [body, n])),
        byText([["same", 1], ["same", null], ["naïve ☃", 3], ["x", 4]])
      )
      assert.isTrue(kept.every((row) => validate(row.id) && version(row.id) === 7))
      // bytes that are not rows of the width fail the write, and nothing of it stays
      const wrong = new RowBytes.RowWriter(3)
      wrong.value("a")
      wrong.value("b")
      wrong.value(1)
      const error = yield* Effect.flip(writer.write([
        { sql: INSERT_NOTE, width: 3, values: ["z", "first", 0] },
        { sql: INSERT_NOTE, width: 2, bytes: wrong.bytes, length: wrong.length, later: [] }
      ]))
      assert.match(error.message, /the last row has 1 of its 2 values/)
      assert.strictEqual((yield* notes).length, 4)
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("a write that fails part way leaves nothing of itself, fails with SQLite's reason, and the thread goes on", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["a", "kept", 1] }])
      // the second row's id is taken: the first row of the same write must not stay
      const duplicate = yield* Effect.flip(writer.write([
        { sql: INSERT_NOTE, width: 3, values: ["b", "new", 2, "a", "again", 3] }
      ]))
      assert.strictEqual(duplicate._tag, "WriterThreadError")
      assert.match(duplicate.message, /UNIQUE constraint failed: notes\.id/)
      // a foreign key names a note that does not exist: the note before it in the write goes too
      const orphan = yield* Effect.flip(writer.write([
        { sql: INSERT_NOTE, width: 3, values: ["c", "new", 3] },
        { sql: INSERT_TAG, width: 2, values: ["nowhere", "x"] }
      ]))
      assert.match(orphan.message, /FOREIGN KEY constraint failed/)
      assert.deepStrictEqual(yield* notes, [{ id: "a", body: "kept", n: 1 }])
      yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["d", "after", 4] }])
      assert.deepStrictEqual((yield* notes).map((row) => row.id), ["a", "d"])
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("writes sent together commit together, but each all or nothing: one that fails takes no other with it", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["taken", "kept", 0] }])
      // sent in one go, they queue while the thread commits the first: its next group holds the rest
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, index) => index),
        (index) =>
          Effect.result(writer.write([
            { sql: INSERT_NOTE, width: 3, values: [`n${String(index).padStart(2, "0")}`, "new", index] },
            // the 20th write's second row has an id that is taken: its first row must not stay either
            { sql: INSERT_NOTE, width: 3, values: index === 20 ? ["taken", "again", index] : [] }
          ])),
        { concurrency: "unbounded" }
      )
      const failed = outcomes.flatMap((outcome, index) => Result.isFailure(outcome) ? [index] : [])
      assert.deepStrictEqual(failed, [20])
      const ids = (yield* notes).map((row) => row.id)
      assert.strictEqual(ids.length, 40)
      assert.notInclude(ids, "n20")
      assert.include(ids, "taken")
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("refuses values that are not whole rows of its width, rather than run forever or bind a short row", () =>
    Effect.gen(function*() {
      yield* createNotes
      const writer = yield* SqliteWriter.SqliteWriter
      for (const width of [0, -1, 1.5, Number.NaN]) {
        const error = yield* Effect.flip(writer.write([{ sql: INSERT_NOTE, width, values: ["a", "x", 1] }]))
        assert.match(error.message, /width must be a whole number from 1/)
      }
      const short = yield* Effect.flip(writer.write([{ sql: INSERT_NOTE, width: 3, values: ["a", "x", 1, "b"] }]))
      assert.match(short.message, /4 values are not rows of 3/)
      assert.deepStrictEqual(yield* notes, [])
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile)))

  it.effect("fails every write once its scope has closed and the thread stopped", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const writer = yield* SqliteWriter.make({ filename: ":memory:" }).pipe(Scope.provide(scope))
      yield* Scope.close(scope, Exit.void)
      const stopped = yield* Effect.flip(writer.write([{ sql: INSERT_NOTE, width: 3, values: ["a", "late", 1] }]))
      assert.match(stopped.message, /the writer thread has stopped/)
    }))

  it.effect("a thread that dies fails the write it held, logs why; another starts for the first write a second later", () => {
    const errors: Array<string> = []
    const collect = Logger.make(({ logLevel, message }) => {
      if (logLevel === "Error") errors.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    return Effect.gen(function*() {
      yield* createNotes
      const sql = yield* SqlClient.SqlClient
      const [main] = yield* sql<{ readonly file: string }>`PRAGMA database_list`
      const writer = yield* SqliteWriter.make({ filename: main?.file ?? "", heapLimitMb: 16 })
      assert.deepStrictEqual(yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["a", "before", 1] }]), [1])
      // 64 MB of rows: more than a 16 MiB heap holds
      const huge = Array.from({ length: 320 }, (_, i) => [`big-${i}`, "x".repeat(200_000), i]).flat()
      const died = yield* Effect.flip(writer.write([{ sql: INSERT_NOTE, width: 3, values: huge }]))
      assert.match(died.message, /^the writer thread failed: .*memory limit/)
      yield* Effect.yieldNow
      assert.deepStrictEqual(errors, [
        `sqlite writer: ${died.message}; 1 write failed, a new thread starts with the first write 1s or more later`
      ])
      // within the second, no thread is started: the reason at once
      const early = yield* Effect.flip(writer.write([{ sql: INSERT_NOTE, width: 3, values: ["b", "early", 2] }]))
      assert.strictEqual(early.message, died.message)
      yield* TestClock.adjust(SqliteWriter.RESTART_INTERVAL)
      assert.deepStrictEqual(yield* writer.write([{ sql: INSERT_NOTE, width: 3, values: ["c", "after", 3] }]), [1])
      assert.deepStrictEqual(yield* notes, [{ id: "a", body: "before", n: 1 }, { id: "c", body: "after", n: 3 }])
    }).pipe(Effect.provide(TestDatabase.layerSqliteFile), Effect.provide(Logger.layer([collect])))
  })
})
