import { assert, describe, it } from "@effect/vitest"
import { SqliteClient } from "@switchyard/storage"
import { WriteLock } from "@switchyard/storage/testing"
import { Context, Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"

const inMemory = <A, E>(self: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.provide(self, SqliteClient.layer({ filename: ":memory:" }))

const withTempDir = <A, E, R>(f: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "switchyard-sqlite-"))),
    f,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

const createNotes = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0)`
)

const Note = Schema.Struct({ id: Schema.String, body: Schema.String, n: Schema.Number })
const decodeNotes = Schema.decodeUnknownEffect(Schema.Array(Note))

const countNotes = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => Effect.map(sql<{ readonly count: number }>`SELECT count(*) AS count FROM notes`, (rows) => rows[0]?.count)
)

const reasonOf = (error: SqlError.SqlError) => error.reason._tag

describe("SqliteClient", () => {
  it.effect("creates, reads, updates and deletes rows", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      yield* sql`INSERT INTO notes ${sql.insert([{ id: "a", body: "one" }, { id: "b", body: "two" }])}`
      yield* sql`UPDATE notes SET ${sql.update({ body: "uno", n: 1 })} WHERE id = ${"a"}`
      yield* sql`DELETE FROM notes WHERE id = ${"b"}`
      const notes = yield* decodeNotes(yield* sql`SELECT id, body, n FROM notes ORDER BY id`)
      assert.deepStrictEqual(notes, [{ id: "a", body: "uno", n: 1 }])
    })))

  it.effect("binds every kind of parameter: text, integers, reals, bigints, booleans, null, dates and bytes", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql`SELECT ${"text"} AS s, ${42} AS i, ${1.5} AS r, ${2n ** 40n} AS big, ${true} AS yes,
        ${false} AS no, ${null} AS none, ${undefined} AS absent, ${new Date(Date.UTC(2026, 0, 2))} AS at,
        ${new Uint8Array([1, 2, 255])} AS bytes, typeof(${true}) AS yes_type, typeof(${new Date(0)}) AS at_type,
        typeof(${7}) AS whole_type, typeof(${7.5}) AS real_type`
      assert.deepStrictEqual(rows, [{
        s: "text",
        i: 42,
        r: 1.5,
        big: 2 ** 40,
        yes: 1,
        no: 0,
        none: null,
        absent: null,
        at: "2026-01-02T00:00:00.000Z",
        bytes: new Uint8Array([1, 2, 255]),
        yes_type: "integer",
        at_type: "text",
        whole_type: "integer",
        real_type: "real"
      }])
    })))

  it.effect("stores a whole number in a TEXT column as \"5\", not \"5.0\"", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE t (v TEXT)`
      yield* sql`INSERT INTO t (v) VALUES (${5})`
      assert.deepStrictEqual(yield* sql`SELECT v FROM t`, [{ v: "5" }])
    })))

  it.effect("reads integers as bigint under SqlClient.SafeIntegers", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const huge = 2n ** 60n + 1n
      const rows = yield* sql`SELECT ${huge} AS huge`.pipe(Effect.provideService(SqlClient.SafeIntegers, true))
      assert.deepStrictEqual(rows, [{ huge }])
    })))

  it.effect("refuses a parameter it cannot bind with a SqlError instead of binding it as NULL", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const plainObject = yield* Effect.flip(sql`SELECT ${{ a: 1 }} AS o`)
      assert.instanceOf(plainObject, SqlError.SqlError)
      assert.include(plainObject.message, "parameter 1: cannot bind a value of type object")
      const invalidDate = yield* Effect.flip(sql`SELECT ${new Date(Number.NaN)} AS d`)
      assert.include(invalidDate.message, "parameter 1: invalid Date")
    })))

  it.effect("returns the rows written by INSERT … RETURNING", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      const rows = yield* sql`INSERT INTO notes ${sql.insert({ id: "a", body: "one" }).returning("*")}`
      assert.deepStrictEqual(rows, [{ id: "a", body: "one", n: 0 }])
    })))

  it.effect("quotes identifiers with double quotes and binds values as ? placeholders", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const [text, params] = sql`SELECT ${sql("we\"ird")} FROM t WHERE a = ${1} AND ${sql.in("b", [2, 3])}`.compile()
      assert.strictEqual(text, "SELECT \"we\"\"ird\" FROM t WHERE a = ? AND \"b\" IN (?,?)")
      assert.deepStrictEqual(params, [1, 2, 3])
    })))

  it.effect("returns rows as arrays with .values and as a stream", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      assert.deepStrictEqual(yield* sql`SELECT 1 AS a, 2 AS a`.values, [[1, 2]])
      const streamed = yield* Stream.runCollect(sql<{ readonly v: number }>`SELECT 1 AS v UNION ALL SELECT 2`.stream)
      assert.deepStrictEqual(streamed, [{ v: 1 }, { v: 2 }])
    })))

  it.effect("keeps working when the statement cache is off or holds a single statement", () =>
    Effect.forEach([0, 1], (statementCacheSize) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (let round = 0; round < 3; round++) {
          assert.deepStrictEqual(yield* sql`SELECT ${round} AS a`, [{ a: round }])
          assert.deepStrictEqual(yield* sql`SELECT ${round} AS b`, [{ b: round }])
        }
      }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:", statementCacheSize })))))

  it.effect("commits a transaction that succeeds", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      yield* sql.withTransaction(sql`INSERT INTO notes ${sql.insert({ id: "a", body: "one" })}`)
      assert.strictEqual(yield* countNotes, 1)
    })))

  it.effect("rolls back a transaction that fails", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      const failed = sql`INSERT INTO notes ${sql.insert({ id: "a", body: "one" })}`.pipe(
        Effect.andThen(Effect.fail("abort")),
        sql.withTransaction
      )
      assert.strictEqual(yield* Effect.flip(failed), "abort")
      assert.strictEqual(yield* countNotes, 0)
    })))

  it.effect("rolls back only the failed nested transaction, to its savepoint", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      const inner = sql`INSERT INTO notes ${sql.insert({ id: "inner", body: "x" })}`.pipe(
        Effect.andThen(Effect.fail("inner fails")),
        sql.withTransaction
      )
      yield* Effect.gen(function*() {
        yield* sql`INSERT INTO notes ${sql.insert({ id: "outer", body: "x" })}`
        yield* Effect.flip(inner)
        yield* sql.withTransaction(sql`INSERT INTO notes ${sql.insert({ id: "sibling", body: "x" })}`)
      }).pipe(sql.withTransaction)
      const ids = yield* sql<{ readonly id: string }>`SELECT id FROM notes ORDER BY id`
      assert.deepStrictEqual(ids.map((row) => row.id), ["outer", "sibling"])
    })))

  it.effect("serialises concurrent transactions on the one connection, losing no update", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      yield* sql`INSERT INTO notes ${sql.insert({ id: "counter", body: "" })}`
      const increment = Effect.gen(function*() {
        const rows = yield* sql<{ readonly n: number }>`SELECT n FROM notes WHERE id = 'counter'`
        yield* Effect.yieldNow
        yield* sql`UPDATE notes SET n = ${(rows[0]?.n ?? 0) + 1} WHERE id = 'counter'`
      }).pipe(sql.withTransaction)
      yield* Effect.all(Array.from({ length: 25 }, () => increment), { concurrency: "unbounded" })
      assert.deepStrictEqual(yield* sql`SELECT n FROM notes WHERE id = 'counter'`, [{ n: 25 }])
    })))

  it.effect("makes a statement outside a transaction wait until another fiber's transaction ends", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      const inserted = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const writer = yield* Effect.forkChild(
        Effect.gen(function*() {
          yield* sql`INSERT INTO notes ${sql.insert({ id: "a", body: "uncommitted" })}`
          yield* Deferred.succeed(inserted, undefined)
          yield* Deferred.await(release)
        }).pipe(sql.withTransaction)
      )
      yield* Deferred.await(inserted)
      const reader = yield* Effect.forkChild(countNotes)
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      assert.isUndefined(reader.pollUnsafe())
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writer)
      assert.strictEqual(yield* Fiber.join(reader), 1)
    })))

  it.effect("maps SQLite errors to SqlError reasons", () =>
    inMemory(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* createNotes
      yield* sql`CREATE TABLE tags (note_id TEXT NOT NULL REFERENCES notes (id))`
      yield* sql`INSERT INTO notes ${sql.insert({ id: "a", body: "one" })}`
      const duplicate = yield* Effect.flip(sql`INSERT INTO notes ${sql.insert({ id: "a", body: "again" })}`)
      assert.strictEqual(reasonOf(duplicate), "UniqueViolation")
      assert.include(duplicate.message, "UNIQUE constraint failed: notes.id")
      const notNull = yield* Effect.flip(sql`INSERT INTO notes (id) VALUES (${"b"})`)
      assert.strictEqual(reasonOf(notNull), "ConstraintError")
      const foreignKey = yield* Effect.flip(sql`INSERT INTO tags (note_id) VALUES (${"missing"})`)
      assert.strictEqual(reasonOf(foreignKey), "ConstraintError")
      const noTable = yield* Effect.flip(sql`SELECT * FROM nowhere`)
      assert.instanceOf(noTable, SqlError.SqlError)
      assert.include(noTable.message, "no such table: nowhere")
    })))

  it.effect("fails to open a file in a missing directory with a ConnectionError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.scoped(
          Effect.asVoid(Effect.provide(SqlClient.SqlClient, SqliteClient.layer({ filename: "/nonexistent/dir/x.db" })))
        )
      )
      assert.strictEqual(reasonOf(error), "ConnectionError")
    }))

  it.effect("takes the write lock when a transaction begins, so another process's write fails with LockTimeoutError", () =>
    withTempDir((dir) =>
      Effect.scoped(Effect.gen(function*() {
        const filename = join(dir, "shared.db")
        const client = (busyTimeout: number) =>
          Effect.map(
            Layer.build(SqliteClient.layer({ filename, busyTimeout })),
            (context) => Context.get(context, SqlClient.SqlClient)
          )
        const holder = yield* client(1000)
        const other = yield* client(0)
        yield* holder`CREATE TABLE t (a INTEGER)`
        const began = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const transaction = yield* Effect.forkChild(
          Effect.andThen(Deferred.succeed(began, undefined), Deferred.await(release)).pipe(holder.withTransaction)
        )
        yield* Deferred.await(began)
        const error = yield* Effect.flip(other`INSERT INTO t (a) VALUES (${1})`)
        assert.strictEqual(error.reason._tag, "LockTimeoutError")
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(transaction)
        yield* other`INSERT INTO t (a) VALUES (${1})`
      }))
    ))

  it.effect("waits for another connection's write lock between tries, so the event loop runs meanwhile", () =>
    withTempDir((dir) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* createNotes
        const write = yield* WriteLock.underWriteLock(sql`INSERT INTO notes ${sql.insert({ id: "a", body: "one" })}`)
        const transaction = yield* WriteLock.underWriteLock(
          sql`INSERT INTO notes ${sql.insert({ id: "b", body: "two" })}`.pipe(sql.withTransaction)
        )
        assert.deepStrictEqual(
          [write.eventLoopRan, write.waited, transaction.eventLoopRan, transaction.waited],
          [true, true, true, true]
        )
        assert.strictEqual(yield* countNotes, 2)
      }).pipe(Effect.provide(SqliteClient.layer({ filename: join(dir, "locked.db") })))
    ))

  it.effect("gives up on a write lock held past the busy timeout with LockTimeoutError, and writes once it is free", () =>
    withTempDir((dir) =>
      Effect.scoped(Effect.gen(function*() {
        const filename = join(dir, "held.db")
        const sql = yield* Effect.map(
          Layer.build(SqliteClient.layer({ filename, busyTimeout: "300 millis" })),
          (context) => Context.get(context, SqlClient.SqlClient)
        )
        yield* sql`CREATE TABLE t (a INTEGER)`
        const holder = new DatabaseSync(filename)
        yield* Effect.addFinalizer(() => Effect.sync(() => holder.close()))
        holder.exec("BEGIN IMMEDIATE")
        // the other connection holds the lock in real time, so the wait is measured in real time too
        const started = Date.now()
        const insert = yield* Effect.forkChild(Effect.flip(sql`INSERT INTO t (a) VALUES (${1})`))
        yield* TestClock.withLive(Effect.sleep("100 millis"))
        assert.isBelow(Date.now() - started, 290, "the event loop ran while the insert waited")
        assert.isUndefined(insert.pollUnsafe(), "still waiting before the timeout")
        const error = yield* Fiber.join(insert)
        assert.strictEqual(error.reason._tag, "LockTimeoutError")
        assert.isAtLeast(Date.now() - started, 300)
        holder.exec("COMMIT")
        yield* sql`INSERT INTO t (a) VALUES (${2})`
        assert.deepStrictEqual(yield* sql`SELECT a FROM t`, [{ a: 2 }])
      }))
    ))

  it.effect("opens a file in WAL mode with foreign keys and SQLite's busy handler off, and closes it with the scope", () =>
    withTempDir((dir) =>
      Effect.gen(function*() {
        const filename = join(dir, "test.db")
        const pragmas = Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE t (a INTEGER)`
          return {
            journal: yield* sql`PRAGMA journal_mode`,
            foreignKeys: yield* sql`PRAGMA foreign_keys`,
            busy: yield* sql`PRAGMA busy_timeout`,
            walWhileOpen: existsSync(`${filename}-wal`)
          }
        }).pipe(Effect.provide(SqliteClient.layer({ filename, busyTimeout: "2 seconds" })))
        const seen = yield* pragmas
        assert.deepStrictEqual(seen, {
          journal: [{ journal_mode: "wal" }],
          foreignKeys: [{ foreign_keys: 1 }],
          // the client waits for the lock between tries itself (above)
          busy: [{ timeout: 0 }],
          walWhileOpen: true
        })
        // SQLite checkpoints and removes the WAL file when the last connection closes
        assert.isFalse(existsSync(`${filename}-wal`))
      })
    ))

  it.effect("syncs every commit unless told `normal`, which it asks for only under WAL", () =>
    withTempDir((dir) =>
      Effect.gen(function*() {
        // SQLite's levels: 1 NORMAL, 2 FULL (its default)
        const level = (options: Omit<SqliteClient.SqliteClientConfig, "filename">, filename: string) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ readonly synchronous: number }>`PRAGMA synchronous`).pipe(
            Effect.map((rows) => rows[0]?.synchronous),
            Effect.provide(SqliteClient.layer({ filename, ...options }))
          )
        assert.strictEqual(yield* level({}, join(dir, "default.db")), 2)
        assert.strictEqual(yield* level({ synchronous: "full" }, join(dir, "full.db")), 2)
        assert.strictEqual(yield* level({ synchronous: "normal" }, join(dir, "normal.db")), 1)
        // no WAL in memory: NORMAL there could leave a database inconsistent after a crash
        assert.strictEqual(yield* level({ synchronous: "normal" }, ":memory:"), 2)
      })
    ))
})
