import { assert, describe, it } from "@effect/vitest"
import { StoreOutage } from "@switchyard/redis"
import { Duration, Effect, Fiber, Logger, Metric, type Scope } from "effect"
import { TestClock } from "effect/testing"

type Mode = "answering" | "refusing" | "silent"

/** Redis as the guard sees it: a `GET` and `PING`s that answer, fail unreached, or never answer. */
class FakeRedis {
  mode: Mode = "answering"
  pings = 0
  /** How many `GET`s reached Redis. */
  gets = 0

  readonly ping = Effect.suspend(() => {
    this.pings++
    return this.answer("PONG")
  })

  readonly get = Effect.suspend(() => {
    this.gets++
    return this.answer("stored")
  })

  private answer<A>(value: A): Effect.Effect<A, Error> {
    switch (this.mode) {
      case "answering":
        return Effect.succeed(value)
      case "refusing":
        return Effect.fail(new Error("connect ECONNREFUSED 127.0.0.1:6379"))
      case "silent":
        return Effect.never
    }
  }
}

/** An error Redis answered with (`WRONGTYPE`, …) rather than one that did not reach it. */
class ReplyError extends Error {}

const unreachable = (error: Error): unknown => error instanceof ReplyError ? undefined : error

/** Runs `effect` with its warnings collected, a metric registry of its own and a scope for the probe. */
const observed = <A, E>(effect: (warnings: ReadonlyArray<string>) => Effect.Effect<A, E, Scope.Scope>) => {
  const warnings: Array<string> = []
  const collect = Logger.make(({ logLevel, message }) => {
    if (logLevel === "Warn") warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return effect(warnings).pipe(
    Effect.scoped,
    Effect.provide(Logger.layer([collect])),
    Effect.provideService(Metric.MetricRegistry, new Map())
  )
}

interface Guarded {
  readonly redis: FakeRedis
  readonly outage: StoreOutage.StoreOutage
  readonly warnings: ReadonlyArray<string>
}

/** Runs `test` over the guard of a store "test" in front of a fake Redis, observed. */
const withGuard = <A, E>(test: (guarded: Guarded) => Effect.Effect<A, E, Scope.Scope>, deadline?: Duration.Input) =>
  observed((warnings) => {
    const redis = new FakeRedis()
    return StoreOutage.make({ store: "test", whileDown: "lookups are misses", ping: redis.ping, deadline }).pipe(
      Effect.flatMap((outage) => test({ redis, outage, warnings }))
    )
  })

/** A lookup through `outage`: `"stored"` from Redis, or the fallback `"miss"`. */
const lookup = (outage: StoreOutage.StoreOutage, redis: FakeRedis) =>
  outage.guard(redis.get, { fallback: "miss", unreachable })

const errorCount = (store: string) => Effect.map(Metric.value(StoreOutage.storeErrors(store)), (state) => state.count)

describe("StoreOutage", () => {
  it.effect("answers what Redis answers within the deadline, and counts nothing", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* lookup(outage, redis), "stored")
        assert.deepStrictEqual(warnings, [])
        assert.strictEqual(yield* errorCount("test"), 0)
      })
    ))

  it.effect("passes on an error Redis answered with, and keeps using Redis", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        const wrongType = Effect.fail(
          new ReplyError("WRONGTYPE Operation against a key holding the wrong kind of value")
        )
        const error = yield* Effect.flip(outage.guard(wrongType, { fallback: "miss", unreachable }))
        assert.instanceOf(error, ReplyError)
        assert.strictEqual(yield* lookup(outage, redis), "stored")
        assert.deepStrictEqual(warnings, [])
        assert.strictEqual(yield* errorCount("test"), 0)
      })
    ))

  it.effect("answers the fallback once Redis could not be reached, and then skips Redis, logging once", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        redis.mode = "refusing"
        for (let i = 0; i < 4; i++) {
          assert.strictEqual(yield* lookup(outage, redis), "miss")
        }
        assert.strictEqual(redis.gets, 1)
        assert.deepStrictEqual(warnings, [
          "test store: Redis unreachable (connect ECONNREFUSED 127.0.0.1:6379); lookups are misses until it answers again"
        ])
        assert.strictEqual(yield* errorCount("test"), 4)
      })
    ))

  it.effect("probes 50 ms after Redis went down, doubling to 1 s, and uses Redis again once it answers", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        redis.mode = "refusing"
        yield* lookup(outage, redis)

        // probes at 50, 150, 350, 750, 1550, 2550, 3550 ms: each waits twice as long, at most 1 s
        const steps: ReadonlyArray<readonly [number, number]> = [
          [49, 0],
          [1, 1],
          [100, 2],
          [200, 3],
          [400, 4],
          [800, 5],
          [1_000, 6],
          [999, 6],
          [1, 7]
        ]
        for (const [millis, pings] of steps) {
          yield* TestClock.adjust(Duration.millis(millis))
          assert.strictEqual(redis.pings, pings, `after ${millis} ms more`)
        }
        assert.strictEqual(yield* lookup(outage, redis), "miss")
        assert.strictEqual(redis.gets, 1)

        redis.mode = "answering"
        yield* TestClock.adjust("1 second")
        assert.strictEqual(redis.pings, 8)
        assert.strictEqual(warnings[1], "test store: Redis answers again after 4s 550ms")
        assert.strictEqual(yield* lookup(outage, redis), "stored")
        assert.strictEqual(redis.gets, 2)
        assert.strictEqual(warnings.length, 2)
      })
    ))

  it.effect("counts a probe that has not answered within the deadline as failed", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        redis.mode = "refusing"
        yield* lookup(outage, redis)
        redis.mode = "silent"
        // probe at 50 ms, given up at 200 ms; the next one 100 ms later, at 300 ms
        yield* TestClock.adjust("299 millis")
        assert.strictEqual(redis.pings, 1)
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(redis.pings, 2)
        assert.strictEqual(yield* lookup(outage, redis), "miss")
        assert.strictEqual(warnings.length, 1)
      })
    ))

  it.effect("answers the fallback when Redis has not answered within 150 ms, and counts Redis as down", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        redis.mode = "silent"
        const pending = yield* Effect.forkChild(lookup(outage, redis))
        yield* TestClock.adjust("149 millis")
        assert.isUndefined(pending.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* Fiber.join(pending), "miss")
        assert.include(warnings[0], "test store: Redis unreachable (no answer within 150ms)")
        assert.strictEqual(yield* lookup(outage, redis), "miss")
        assert.strictEqual(redis.gets, 1)
      })
    ))

  it.effect("takes its deadline from the options", () =>
    withGuard(({ redis, outage }) =>
      Effect.gen(function*() {
        redis.mode = "silent"
        const pending = yield* Effect.forkChild(lookup(outage, redis))
        yield* TestClock.adjust("999 millis")
        assert.isUndefined(pending.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(yield* Fiber.join(pending), "miss")
      }), "1 second"))

  it.effect("counts in gateway_store_errors_total with the store's name as its `store` label", () =>
    observed(() =>
      Effect.gen(function*() {
        const redis = new FakeRedis()
        const cache = yield* StoreOutage.make({ store: "cache", whileDown: "misses", ping: redis.ping })
        const circuit = yield* StoreOutage.make({ store: "circuit", whileDown: "closed", ping: redis.ping })
        redis.mode = "refusing"
        for (let i = 0; i < 3; i++) yield* lookup(cache, redis)
        yield* lookup(circuit, redis)

        // as a metrics exporter reads it
        const counted = new Map<string, number>()
        for (const snapshot of yield* Metric.snapshot) {
          if (snapshot.id !== "gateway_store_errors_total" || snapshot.type !== "Counter") continue
          counted.set(String(snapshot.attributes?.store), Number(snapshot.state.count))
        }
        assert.deepStrictEqual(Object.fromEntries(counted), { cache: 3, circuit: 1 })
      })
    ))

  it.effect("with an infinite deadline, waits on Redis however long it takes", () =>
    withGuard(({ redis, outage, warnings }) =>
      Effect.gen(function*() {
        redis.mode = "silent"
        const pending = yield* Effect.forkChild(lookup(outage, redis))
        yield* TestClock.adjust("1 hour")
        assert.isUndefined(pending.pollUnsafe())
        assert.deepStrictEqual(warnings, [])
      }), Duration.infinity))

  describe("one deadline watch over the operations in flight", () => {
    /** An operation that answers `value` after `millis` on the test clock. */
    const answersAfter = (millis: number, value: string) => Effect.as(Effect.sleep(Duration.millis(millis)), value)
    const guarded = (outage: StoreOutage.StoreOutage, operation: Effect.Effect<string, Error>) =>
      outage.guard(operation, { fallback: "miss", unreachable })

    it.effect("gives each operation its whole deadline from its own start", () =>
      withGuard(({ outage }) =>
        Effect.gen(function*() {
          const first = yield* Effect.forkChild(guarded(outage, Effect.never))
          yield* TestClock.adjust("100 millis")
          const second = yield* Effect.forkChild(guarded(outage, Effect.never))
          yield* TestClock.adjust("50 millis")
          assert.strictEqual(yield* Fiber.join(first), "miss")
          assert.isUndefined(second.pollUnsafe())
          yield* TestClock.adjust("99 millis")
          assert.isUndefined(second.pollUnsafe())
          yield* TestClock.adjust("1 millis")
          assert.strictEqual(yield* Fiber.join(second), "miss")
        })
      ))

    it.effect("lets a later operation answer in time while an older one runs out of it", () =>
      withGuard(({ outage, warnings }) =>
        Effect.gen(function*() {
          const slow = yield* Effect.forkChild(guarded(outage, answersAfter(200, "late")))
          yield* TestClock.adjust("100 millis")
          const quick = yield* Effect.forkChild(guarded(outage, answersAfter(40, "stored")))
          yield* TestClock.adjust("40 millis")
          assert.strictEqual(yield* Fiber.join(quick), "stored")
          assert.isUndefined(slow.pollUnsafe())
          yield* TestClock.adjust("10 millis")
          assert.strictEqual(yield* Fiber.join(slow), "miss")
          assert.strictEqual(warnings.length, 1)
        })
      ))

    it.effect("cuts short every operation due at once, and says Redis is down once", () =>
      withGuard(({ outage, warnings }) =>
        Effect.gen(function*() {
          const pending = yield* Effect.forkChild(
            Effect.all(Array.from({ length: 500 }, () => guarded(outage, Effect.never)), { concurrency: "unbounded" })
          )
          yield* TestClock.adjust("150 millis")
          const answers = yield* Fiber.join(pending)
          assert.deepStrictEqual(new Set(answers), new Set(["miss"]))
          assert.strictEqual(warnings.length, 1)
          assert.strictEqual(yield* errorCount("test"), 500)
        })
      ))

    it.effect("interrupts the operation of an interrupted caller, which then counts nothing", () =>
      withGuard(({ outage, warnings }) =>
        Effect.gen(function*() {
          let interrupted = false
          const operation = Effect.onInterrupt(Effect.never, () => Effect.sync(() => (interrupted = true)))
          const caller = yield* Effect.forkChild(guarded(outage, operation))
          yield* TestClock.adjust("10 millis")
          yield* Fiber.interrupt(caller)
          assert.isTrue(interrupted)
          yield* TestClock.adjust("1 second")
          assert.deepStrictEqual(warnings, [])
          assert.strictEqual(yield* errorCount("test"), 0)
        })
      ))
  })
})
