import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CacheStore } from "@switchyard/cache"
import { Context, Duration, Effect, Fiber, Layer, Logger, Metric, Queue, Schedule } from "effect"
import { Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import { randomUUID } from "node:crypto"
import { FlakyRedis } from "./support/FlakyRedis.ts"
import * as RedisServer from "./support/RedisServer.ts"

/** The spec's bound on a store call while Redis is unreachable. */
const BOUND_MILLIS = 250

/** A redis-server of the test's own, killed when the test ends. */
const redisServer = (port?: number) =>
  Effect.acquireRelease(Effect.promise(() => RedisServer.start(port)), (server) => Effect.promise(server.kill))

/** The Redis store at `url`, built in the test's scope. */
const storeAt = (url: string) =>
  Effect.map(
    Layer.build(CacheStore.layerRedis({ url, prefix: "switchyard-test:outage:" })),
    Context.get(CacheStore.CacheStore)
  )

/** Runs `effect` with its warnings collected (`next` waits for one) and a metric registry of its own. */
const observed = <A, E, R>(
  effect: (warnings: ReadonlyArray<string>, next: Effect.Effect<string>) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const arrived = yield* Queue.unbounded<string>()
    const collect = Logger.make(({ logLevel, message }) => {
      if (logLevel !== "Warn") return
      const text = Array.isArray(message) ? message.join(" ") : String(message)
      warnings.push(text)
      Queue.offerUnsafe(arrived, text)
    })
    return yield* effect(warnings, Queue.take(arrived)).pipe(
      Effect.provide(Logger.layer([collect])),
      Effect.provideService(Metric.MetricRegistry, new Map())
    )
  })

/** Real time this takes: the bound is on a real socket. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([elapsed, value]) => ({ millis: Duration.toMillis(elapsed), value }))

/** Polls `check` until it holds (the store reconnecting to a real process), for at most 10 s. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  check.pipe(
    Effect.filterOrFail((ok) => ok, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
  )

const roundTrip = (store: CacheStore.CacheStore["Service"], key: string) =>
  Effect.gen(function*() {
    yield* Effect.orDie(store.set(key, "again", 60_000))
    return (yield* Effect.orDie(store.get(key))) === "again"
  })

const count = (warnings: ReadonlyArray<string>, text: string) =>
  warnings.filter((warning) => warning.includes(text)).length

/** `gateway_store_errors_total{store="cache"}`, as a metrics exporter reads it. */
const storeErrors = Effect.map(Metric.snapshot, (snapshots) => {
  let total = 0
  for (const snapshot of snapshots) {
    if (
      snapshot.id === "gateway_store_errors_total" && snapshot.type === "Counter" &&
      snapshot.attributes?.store === "cache"
    ) total += Number(snapshot.state.count)
  }
  return total
})

/** The store over `flaky`, in front of the machine's Redis on 127.0.0.1:6379. */
const flakyStore = (flaky: FlakyRedis) =>
  Effect.gen(function*() {
    const inner = Context.get(yield* Layer.build(NodeRedis.layer({ url: "redis://127.0.0.1:6379" })), Redis.Redis)
    const layer = CacheStore.layerStoreRedis({ prefix: `switchyard-test:outage:${randomUUID()}:` })
    return Context.get(yield* Layer.build(layer.pipe(Layer.provide(flaky.layer(inner)))), CacheStore.CacheStore)
  })

describe("the Redis cache store's outage handling, on the test clock", () => {
  it.effect("skips Redis while it is down, probes it 50 ms after, doubling to 1 s, and uses it again once it answers", () =>
    observed((warnings, next) =>
      Effect.gen(function*() {
        const flaky = new FlakyRedis()
        const store = yield* flakyStore(flaky)
        flaky.mode = "refusing"
        assert.isUndefined(yield* store.get("answer"))
        assert.deepStrictEqual(warnings, [
          "cache store: Redis unreachable (connect ECONNREFUSED 127.0.0.1:6379); lookups are misses and answers are not stored until it answers again"
        ])
        for (let i = 0; i < 3; i++) assert.isUndefined(yield* store.get("answer"))
        yield* store.set("answer", "stored", 60_000)
        assert.deepStrictEqual(flaky.sent, ["GET"])

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
          assert.strictEqual(flaky.count("PING"), pings, `after ${millis} ms more`)
        }
        flaky.mode = "answering"
        yield* TestClock.adjust("1 second")
        // the probe's PING goes to the real Redis: wait for its answer to be logged
        assert.strictEqual(yield* Effect.andThen(next, next), "cache store: Redis answers again after 4s 550ms")
        yield* store.set("answer", "stored", 60_000)
        assert.strictEqual(yield* store.get("answer"), "stored")
        assert.strictEqual(yield* storeErrors, 5)
      })
    ).pipe(Effect.scoped))

  it.effect("answers a miss when Redis has not answered within 150 ms, and counts Redis as down", () =>
    observed((warnings) =>
      Effect.gen(function*() {
        const flaky = new FlakyRedis()
        const store = yield* flakyStore(flaky)
        flaky.mode = "silent"
        const lookup = yield* Effect.forkChild(store.get("answer"))
        yield* TestClock.adjust("149 millis")
        assert.isUndefined(lookup.pollUnsafe())
        yield* TestClock.adjust("1 millis")
        assert.isUndefined(yield* Fiber.join(lookup))
        assert.include(warnings[0], "cache store: Redis unreachable (no answer within 150ms)")
        assert.isUndefined(yield* store.get("other"))
        assert.deepStrictEqual(flaky.sent, ["GET"])
      })
    ).pipe(Effect.scoped))
})

describe("the Redis cache store while a redis-server of its own is down", () => {
  it.live("answers a miss and skips writes within 250 ms once Redis is killed, then works again once it is back", () =>
    observed((warnings) =>
      Effect.gen(function*() {
        const server = yield* redisServer()
        const store = yield* storeAt(server.url)
        yield* store.set("answer", "stored", 60_000)
        assert.strictEqual(yield* store.get("answer"), "stored")

        yield* Effect.promise(server.kill)
        for (let i = 0; i < 5; i++) {
          const lookup = yield* timed(store.get("answer"))
          assert.isUndefined(lookup.value)
          assert.isBelow(lookup.millis, BOUND_MILLIS)
        }
        assert.isBelow((yield* timed(store.set("other", "value", 60_000))).millis, BOUND_MILLIS)
        assert.isBelow((yield* timed(store.append("vectors", "item", 60_000))).millis, BOUND_MILLIS)
        const read = yield* timed(store.readFrom("vectors", 3))
        assert.deepStrictEqual(read.value, { items: [], next: 3, reset: false })
        assert.isBelow(read.millis, BOUND_MILLIS)

        yield* Effect.promise(server.restart)
        yield* eventually(roundTrip(store, "answer"))

        assert.strictEqual(count(warnings, "cache store: Redis unreachable"), 1)
        assert.strictEqual(count(warnings, "cache store: Redis answers again"), 1)
        assert.isAtLeast(yield* storeErrors, 8)
      })
    ).pipe(Effect.scoped))

  it.live("answers a miss within 250 ms while Redis does not answer, then works again once it does", () =>
    observed((warnings) =>
      Effect.gen(function*() {
        const server = yield* redisServer()
        const store = yield* storeAt(server.url)
        yield* store.set("answer", "stored", 60_000)

        server.pause()
        for (let i = 0; i < 3; i++) {
          const lookup = yield* timed(store.get("answer"))
          assert.isUndefined(lookup.value)
          assert.isBelow(lookup.millis, BOUND_MILLIS)
        }
        server.resume()
        yield* eventually(roundTrip(store, "answer"))
        assert.include(warnings[0], "no answer within 150ms")
      })
    ).pipe(Effect.scoped))

  it.live("builds while Redis is down at start, answers misses, and uses Redis once it starts", () =>
    observed(() =>
      Effect.gen(function*() {
        const port = yield* Effect.promise(RedisServer.unusedPort)
        const built = yield* timed(storeAt(`redis://127.0.0.1:${port}`))
        assert.isBelow(built.millis, 1_500)
        const store = built.value
        const lookup = yield* timed(store.get("answer"))
        assert.isUndefined(lookup.value)
        assert.isBelow(lookup.millis, BOUND_MILLIS)

        yield* redisServer(port)
        yield* eventually(roundTrip(store, "answer"))
      })
    ).pipe(Effect.scoped))
})
