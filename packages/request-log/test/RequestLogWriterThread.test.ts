/**
 * The request log written by storage's writer thread on the embedded SQLite file: what it writes reads
 * back through the gateway's own connection, batches larger than one INSERT included; a batch the
 * thread cannot write fails with its reason.
 */
import { assert, describe, it } from "@effect/vitest"
import { LogRows, RequestLogStore } from "@switchyard/request-log"
import { Database, SqliteWriter } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Fiber, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { entry } from "./support/LogEntries.ts"

const inTempDir = <A, E>(test: (dir: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "switchyard-log-thread-"))),
    test,
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** The gateway's arrangement: a migrated SQLite file, and the writer thread on it. */
const onFile = RequestLogStore.RequestLogStore.layerSqliteWriter.pipe(Layer.provideMerge(TestDatabase.layerSqliteFile))

describe("the request log's SQLite writer thread", () => {
  it.effect("writes every record of a batch larger than one INSERT, read back on the gateway's connection", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore.RequestLogStore
      const hooks = [{
        id: "h-1",
        stage: "after" as const,
        target_path: "config",
        type: "guardrail" as const,
        verdict: true,
        deny: false,
        execution_time: 1,
        checks: [{ id: "default.contains", verdict: true, explanation: "0 of 1 words found", execution_time: 1 }]
      }]
      yield* store.write(
        LogRows.LogRows.of(Array.from({ length: 250 }, (_, index) => ({ ...entry(`t-${index}`), notes: { hooks } })))
      )
      const page = yield* store.list("ws-1", { limit: 100, order: "desc", trace_id: "t-249" })
      assert.strictEqual(page.data.length, 1)
      assert.deepStrictEqual(page.data[0]?.metadata, { team: "search" })
      assert.deepStrictEqual(page.data[0]?.hook_results, hooks)
      assert.strictEqual(yield* store.deleteBefore(1_700_000_000_001), 250)
    }).pipe(Effect.provide(onFile)))

  it.effect("sweeps a chunk a transaction: a batch sent during a long sweep is written between its chunks", () =>
    Effect.gen(function*() {
      const store = yield* RequestLogStore.RequestLogStore
      const old = RequestLogStore.SWEEP_CHUNK * 10
      yield* store.write(
        LogRows.LogRows.of(Array.from({ length: old }, (_, index) => entry(`old-${index}`, { receivedAt: index })))
      )
      const sweep = yield* Effect.forkChild(store.deleteBefore(old))
      // the sweep sends its first chunk to the thread before this batch
      yield* Effect.yieldNow
      yield* store.write(LogRows.LogRows.of([entry("t-new")]))
      // one DELETE would have held the batch behind all ten thousand rows
      assert.isUndefined(sweep.pollUnsafe())
      assert.strictEqual(yield* Fiber.join(sweep), old)
      const page = yield* store.list("ws-1", { limit: 10, order: "desc" })
      assert.deepStrictEqual(page.data.map((record) => record.trace_id), ["t-new"])
    }).pipe(Effect.provide(onFile)))

  it.effect("fails a batch it cannot write with the thread's reason", () =>
    inTempDir((dir) => {
      // a database without the request log's table
      const elsewhere = join(dir, "other.db")
      new DatabaseSync(elsewhere).close()
      return Effect.gen(function*() {
        const store = yield* RequestLogStore.RequestLogStore
        const error = yield* Effect.flip(store.write(LogRows.LogRows.of([entry("t-lost")])))
        assert.strictEqual(error._tag, "WriterThreadError")
        assert.match(error.message, /request_logs/)
      }).pipe(
        Effect.provide(
          RequestLogStore.RequestLogStore.layerSqliteWriter.pipe(
            Layer.provide(SqliteWriter.SqliteWriter.layer({ filename: elsewhere })),
            Layer.provideMerge(Database.layerSqlite(join(dir, "switchyard.db")))
          )
        )
      )
    }))
})
