/**
 * The writer off the request path: `record` returns at once whatever the store does; entries are
 * written in batches on the interval or as soon as a batch waits; a full buffer and a failed
 * batch drop entries and count them; what is buffered is written when the layer closes; the
 * hourly sweep deletes what is past retention (TestClock throughout, no sleeps).
 */
import { assert, describe, it } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { LogRecord, LogRows, RequestLog, RequestLogStore } from "@switchyard/request-log"
import type { RowBytes } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Context, Effect, Exit, Fiber, Latch, Layer, Metric, Scope } from "effect"
import { SqlError } from "effect/sql"
import { TestClock } from "effect/testing"
import { entry as logEntry } from "./support/LogEntries.ts"

/** The support's chat completion entry, received at `receivedAt` (the TestClock's start unless told). */
const entry = (traceId: string, receivedAt = 0): LogRecord.Entry => logEntry(traceId, { receivedAt })

/** A store whose writes are kept in `written` (each batch's trace ids), or stall forever, or fail. */
const storeThat = (behaviour: "writes" | "stalls" | "fails") => {
  const written: Array<ReadonlyArray<RowBytes.Value | undefined>> = []
  const store = RequestLogStore.RequestLogStore.of({
    write: (rows) => {
      if (behaviour === "stalls") return Effect.never
      if (behaviour === "fails") {
        return Effect.fail(new SqlError.SqlError({ reason: new SqlError.UnknownError({ cause: "down" }) }))
      }
      return Effect.sync(() => void written.push(rows.toRows(() => "").map((row) => row.trace_id)))
    },
    list: () => Effect.die("unused"),
    get: () => Effect.fail(new GatewayError.NotFound({ message: "unused" })),
    deleteBefore: () => Effect.succeed(0)
  })
  return { written, layer: Layer.succeed(RequestLogStore.RequestLogStore, store) }
}

/** A store whose writes wait until `release` opens, then keep each batch's size in `written`. */
const heldStore = () => {
  const release = Latch.makeUnsafe(false)
  const written: Array<number> = []
  const held = Layer.succeed(
    RequestLogStore.RequestLogStore,
    RequestLogStore.RequestLogStore.of({
      write: (rows) => Effect.andThen(release.await, Effect.sync(() => void written.push(rows.count))),
      list: () => Effect.die("unused"),
      get: () => Effect.fail(new GatewayError.NotFound({ message: "unused" })),
      deleteBefore: () => Effect.succeed(0)
    })
  )
  return { held, release, written }
}

const dropped = (reason: "buffer_full" | "write_failed") =>
  Effect.map(Metric.value(RequestLog.droppedRecords(reason)), (state) => state.count)

/** Builds the writer in a scope of its own, so a test can close it (the shutdown). */
const writer = (store: Layer.Layer<RequestLogStore.RequestLogStore>, options: RequestLog.Options) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(RequestLog.RequestLog.layer(options).pipe(Layer.provide(store)), scope)
    return { log: Context.get(context, RequestLog.RequestLog), scope }
  })

const isolated = <A, E>(effect: Effect.Effect<A, E>) => Effect.provideService(effect, Metric.MetricRegistry, new Map())

describe("RequestLog", () => {
  it.effect("writes on the interval, in one batch, what was recorded", () =>
    isolated(Effect.gen(function*() {
      const { layer, written } = storeThat("writes")
      const { log } = yield* writer(layer, { flushIntervalMs: 1_000 })
      log.record(entry("a"))
      log.record(entry("b"))
      assert.deepStrictEqual(written, [])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(written, [["a", "b"]])
    })))

  it.effect("writes at once when a full batch waits, without waiting for the interval", () =>
    isolated(Effect.gen(function*() {
      const { layer, written } = storeThat("writes")
      const { log } = yield* writer(layer, { flushIntervalMs: 60_000, batchSize: 3 })
      for (const id of ["a", "b", "c", "d"]) log.record(entry(id))
      yield* Effect.yieldNow
      yield* TestClock.adjust("1 millis")
      // a batch of three, and what waited behind it
      assert.deepStrictEqual(written.map((batch) => batch.length), [3, 1])
    })))

  it.effect("keeps what is recorded during a write for a full batch or the interval, not a batch of a few rows", () =>
    isolated(Effect.gen(function*() {
      const { held, release, written } = heldStore()
      const { log } = yield* writer(held, { flushIntervalMs: 1_000, batchSize: 3 })
      for (const id of ["a", "b", "c"]) log.record(entry(id))
      yield* Effect.yieldNow
      // recorded while the full batch is being written
      log.record(entry("d"))
      log.record(entry("e"))
      yield* release.open
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(written, [3])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(written, [3, 2])
    })))

  it.effect("a flush returns once the batch the writer is writing is written, not before", () =>
    isolated(Effect.gen(function*() {
      const { held, release, written } = heldStore()
      const { log } = yield* writer(held, { flushIntervalMs: 1_000, batchSize: 2 })
      log.record(entry("a"))
      log.record(entry("b"))
      yield* Effect.yieldNow
      // the writer holds the batch; the buffer is empty, yet the flush must wait for that batch
      const flushing = yield* Effect.forkChild(log.flush)
      yield* Effect.yieldNow
      assert.isUndefined(flushing.pollUnsafe())
      yield* release.open
      yield* Fiber.join(flushing)
      assert.deepStrictEqual(written, [2])
    })))

  it.effect("returns at once when the store stalls, and drops and counts what the full buffer cannot hold", () =>
    isolated(Effect.gen(function*() {
      const { layer } = storeThat("stalls")
      const { log } = yield* writer(layer, { flushIntervalMs: 100, batchSize: 2, bufferLimit: 3 })
      // the first batch of two goes to the stalled store and stays there
      log.record(entry("a"))
      log.record(entry("b"))
      yield* TestClock.adjust("1 second")
      // the buffer holds three more, the rest is dropped: record never waits
      for (const id of ["c", "d", "e", "f", "g"]) log.record(entry(id))
      assert.strictEqual(yield* dropped("buffer_full"), 2)
    })))

  it.effect("drops and counts a batch the store refuses, and goes on with the next", () =>
    isolated(Effect.gen(function*() {
      const { layer } = storeThat("fails")
      const { log } = yield* writer(layer, { flushIntervalMs: 100 })
      log.record(entry("a"))
      log.record(entry("b"))
      yield* TestClock.adjust("100 millis")
      assert.strictEqual(yield* dropped("write_failed"), 2)
      log.record(entry("c"))
      yield* TestClock.adjust("100 millis")
      assert.strictEqual(yield* dropped("write_failed"), 3)
    })))

  it.effect("writes what is buffered when it is closed", () =>
    isolated(Effect.gen(function*() {
      const { layer, written } = storeThat("writes")
      const { log, scope } = yield* writer(layer, { flushIntervalMs: 60_000 })
      log.record(entry("last words"))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(written, [["last words"]])
    })))

  it.effect("does not hold the shutdown longer than 5 s on a stalled store, and counts what it dropped", () =>
    isolated(Effect.gen(function*() {
      const { layer } = storeThat("stalls")
      const { log, scope } = yield* writer(layer, { flushIntervalMs: 60_000 })
      log.record(entry("stuck"))
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(closing)
      assert.strictEqual(yield* dropped("write_failed"), 1)
    })))

  it.effect("counts an entry it cannot write as lost, and writes the others whole", () =>
    isolated(Effect.gen(function*() {
      const { layer, written } = storeThat("writes")
      const { log } = yield* writer(layer, { flushIntervalMs: 1_000 })
      log.record(entry("a"))
      // a value of no column's type, past the row's first texts: thrown half-way through the row
      log.record({ ...entry("broken"), latencyMs: 1n as unknown as number })
      log.record(entry("b"))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(written, [["a", "b"]])
      assert.strictEqual(yield* dropped("write_failed"), 1)
    })))

  it.effect("records nothing when it is off, and still sweeps what is past retention", () =>
    Effect.gen(function*() {
      const day = 86_400_000
      const store = yield* RequestLogStore.RequestLogStore
      yield* store.write(LogRows.LogRows.of([entry("old", 0)]))
      const { log } = yield* writer(Layer.succeed(RequestLogStore.RequestLogStore, store), {
        enabled: false,
        retentionDays: 30,
        bodies: true
      })
      assert.isFalse(log.bodies)
      log.record(entry("ignored", 31 * day))
      yield* log.flush
      yield* TestClock.adjust(31 * day)
      const listed = yield* store.list("ws-1", { limit: 10, order: "desc" })
      assert.deepStrictEqual(listed.data.map((record) => record.trace_id), [])
    }).pipe(
      Effect.provide(RequestLogStore.RequestLogStore.layerSql.pipe(Layer.provide(TestDatabase.layerSqlite)))
    ))

  it.effect("sweeps the records past retention every hour", () =>
    Effect.gen(function*() {
      const day = 86_400_000
      const store = yield* RequestLogStore.RequestLogStore
      yield* store.write(LogRows.LogRows.of([entry("old", 0), entry("recent", 20 * day)]))
      const { log } = yield* writer(Layer.succeed(RequestLogStore.RequestLogStore, store), {
        retentionDays: 30,
        flushIntervalMs: day
      })
      assert.isFalse(log.bodies)
      const remaining = () =>
        store.list("ws-1", { limit: 10, order: "desc" }).pipe(Effect.map((page) => page.data.map((r) => r.trace_id)))
      assert.deepStrictEqual(yield* remaining(), ["recent", "old"])
      // 30 days and an hour on: the sweep after the first hour finds "old" past retention
      yield* TestClock.adjust(30 * day)
      yield* TestClock.adjust("1 hour")
      assert.deepStrictEqual(yield* remaining(), ["recent"])
    }).pipe(
      Effect.provide(RequestLogStore.RequestLogStore.layerSql.pipe(Layer.provide(TestDatabase.layerSqlite)))
    ))
})
