import { assert, describe, it } from "@effect/vitest"
import { CacheStore } from "@switchyard/cache"
import { RedisCacheStore } from "@switchyard/cache/redis"
import { RedisServer } from "@switchyard/fake-providers"
import { StoreOutage } from "@switchyard/redis"
import { Context, Duration, Effect, Layer, Logger, Metric, Schedule } from "effect"
import { UnreachableRedis } from "./support/UnreachableRedis.ts"

/** The spec's bound on a store call while Redis is unreachable. */
const BOUND_MILLIS = 250

/** A redis-server of the test's own, killed when the test ends. */
const redisServer = (port?: number) =>
  Effect.acquireRelease(Effect.promise(() => RedisServer.start(port)), (server) => Effect.promise(server.kill))

/** The Redis store at `url`, built in the test's scope. */
const storeAt = (url: string, deadline?: Duration.Input) =>
  Effect.map(
    Layer.build(RedisCacheStore.layer({ url, prefix: "switchyard-test:outage:", deadline })),
    Context.get(CacheStore.CacheStore)
  )

/** Runs `effect` with its warnings collected and a metric registry of its own. */
const observed = <A, E, R>(effect: (warnings: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const warnings: Array<string> = []
  const collect = Logger.make(({ logLevel, message }) => {
    if (logLevel === "Warn") warnings.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return effect(warnings).pipe(
    Effect.provide(Logger.layer([collect])),
    Effect.provideService(Metric.MetricRegistry, new Map())
  )
}

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

/** `gateway_store_errors_total{store="cache"}` (its export is tested in @switchyard/redis). */
const storeErrors = Effect.map(Metric.value(StoreOutage.storeErrors("cache")), (state) => state.count)

/** The store over `redis`. */
const storeOver = (redis: UnreachableRedis) =>
  Effect.map(
    Layer.build(RedisCacheStore.layerStore({ prefix: "switchyard-test:outage:" }).pipe(Layer.provide(redis.layer))),
    Context.get(CacheStore.CacheStore)
  )

describe("the Redis cache store while Redis cannot be reached", () => {
  it.effect("answers misses, skips writes and finds no new vectors without sending them while Redis is down", () =>
    observed((warnings) =>
      Effect.gen(function*() {
        const redis = new UnreachableRedis()
        const store = yield* storeOver(redis)
        assert.isUndefined(yield* store.get("answer"))
        assert.deepStrictEqual(warnings, [
          "cache store: Redis unreachable (connect ECONNREFUSED 127.0.0.1:6379); lookups are misses and answers are not stored until it answers again"
        ])
        assert.isUndefined(yield* store.get("answer"))
        yield* store.set("answer", "stored", 60_000)
        yield* store.append("vectors", "item", 60_000)
        assert.deepStrictEqual(yield* store.readFrom("vectors", 3), { items: [], next: 3, reset: false })
        assert.deepStrictEqual(redis.sent, ["GET"])
        assert.strictEqual(warnings.length, 1)
        assert.strictEqual(yield* storeErrors, 5)
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

  it.live("waits on a Redis that does not answer as long as a deadline of the caller's choice, no longer", () =>
    observed((warnings) =>
      Effect.gen(function*() {
        const server = yield* redisServer()
        const store = yield* storeAt(server.url, "600 millis")
        yield* store.set("answer", "stored", 60_000)

        server.pause()
        const lookup = yield* timed(store.get("answer"))
        assert.isUndefined(lookup.value)
        assert.isAtLeast(lookup.millis, 590)
        assert.include(warnings[0], "no answer within 600ms")
        server.resume()
        yield* eventually(roundTrip(store, "answer"))
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
