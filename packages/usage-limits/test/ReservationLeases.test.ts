/**
 * Reservation leases in the counters replicas share (SQLite or Postgres through `layerSql`, and
 * Redis): a process that reserved and was killed before settling leaves a reservation that stops
 * counting once its lease lapses. Each "process" is a counters layer of its own over the same
 * store, closed without settling; time moves on the test clock (Redis is given the clock's time).
 */
import { assert, layer } from "@effect/vitest"
import { RedisConnection } from "@switchyard/redis"
import { TestDatabase } from "@switchyard/storage/testing"
import { UsageCounters } from "@switchyard/usage-limits"
import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
import { Duration, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"

const LEASE = Duration.minutes(2)
const lease = Layer.succeed(UsageCounters.ReservationLease, LEASE)

const WORKSPACE = "ws-lease"
const fresh = () => `policy-${randomBytes(6).toString("hex")}:0:all`
const take = (counter: string, amount: number) => ({
  counter,
  workspaceId: WORKSPACE,
  policyId: counter.split(":")[0] ?? "",
  valueKey: "api_key:k1",
  limit: 100,
  amount
})

/** What a counter still holds in the store: its reserved amount and its open leases. */
interface Held {
  readonly reserved: number
  readonly leases: number
}

/**
 * Moves the test clock a sweep interval at a time until the lease sweep has given `counter`'s
 * leases back (a Redis sweep may need more than one `SCAN` page to reach the key); the real time
 * between tries only waits for the store's answers, at most 10 s in all.
 */
const sweptBack = <E, R>(held: Effect.Effect<Held, E, R>) =>
  Effect.gen(function*() {
    let left = yield* held
    for (let tries = 0; tries < 500 && (left.reserved !== 0 || left.leases !== 0); tries++) {
      yield* TestClock.adjust(UsageCounters.LeaseSweepInterval)
      yield* TestClock.withLive(Effect.sleep("20 millis"))
      left = yield* held
    }
    return left
  })

/**
 * The tests on one store: `process` builds one process's counters over what `shared` gives every
 * process; `held` reads a counter's state straight from the store.
 */
const leaseSuite = <R>(
  name: string,
  shared: Layer.Layer<R, unknown>,
  process: Layer.Layer<UsageCounters.UsageCounters, unknown, R>,
  held: (counter: string) => Effect.Effect<Held, unknown, R>
) =>
  layer(shared)(`reservation leases on ${name}`, (it) => {
    // a process: its own counters layer, closed (killed) when the effect ends, settling nothing
    const inProcess = <A, E, R2>(
      use: (counters: UsageCounters.UsageCounters["Service"]) => Effect.Effect<A, E, R2>
    ) => UsageCounters.UsageCounters.use(use).pipe(Effect.provide(process))

    it.effect("a killed process's reservation counts until its lease lapses, then no longer", () =>
      Effect.gen(function*() {
        const counter = fresh()
        // killed between reserve and settle, holding the whole budget
        const killed = yield* inProcess((counters) => counters.reserve([take(counter, 100)]))
        assert.strictEqual(killed._tag, "Admitted")
        // another replica, 1 ms before the lease ends: the reservation still counts
        yield* TestClock.adjust(Duration.subtract(LEASE, Duration.millis(1)))
        assert.deepStrictEqual(yield* inProcess((counters) => counters.reserve([take(counter, 1)])), {
          _tag: "Refused",
          index: 0
        })
        // at its end it is given back: the whole budget is there again, and only once
        yield* TestClock.adjust(Duration.millis(1))
        const [whole, more] = yield* inProcess((counters) =>
          Effect.all([counters.reserve([take(counter, 100)]), counters.reserve([take(counter, 1)])])
        )
        assert.strictEqual(whole?._tag, "Admitted")
        assert.strictEqual(more?._tag, "Refused")
      }))

    it.effect("a settlement after its lease lapsed adds its usage and gives back nothing twice", () =>
      Effect.gen(function*() {
        const counter = fresh()
        yield* inProcess((counters) =>
          Effect.gen(function*() {
            const slow = yield* counters.reserve([take(counter, 40)])
            assert.strictEqual(slow._tag, "Admitted")
            yield* TestClock.adjust(LEASE)
            // reclaims the slow request's 40, takes its own 40
            assert.strictEqual((yield* counters.reserve([take(counter, 40)]))._tag, "Admitted")
            yield* counters.settle(slow._tag === "Admitted" ? slow.id : "", [
              { counter, workspaceId: WORKSPACE, valueKey: "api_key:k1", reserved: 40, used: 10, alertThreshold: null }
            ])
            // settled 10 + reserved 40: 50 more reach the limit, then nothing; had the late
            // settlement given its 40 back again, 10 + 0 + 50 would still admit another
            assert.strictEqual((yield* counters.reserve([take(counter, 50)]))._tag, "Admitted")
            assert.strictEqual((yield* counters.reserve([take(counter, 1)]))._tag, "Refused")
            assert.deepStrictEqual(yield* counters.usage(WORKSPACE, counter), [
              { valueKey: "api_key:k1", usage: 10, alerted: false }
            ])
          })
        )
      }))

    it.effect("a settled reservation is gone: its lease lapsing later gives nothing back", () =>
      Effect.gen(function*() {
        const counter = fresh()
        yield* inProcess((counters) =>
          Effect.gen(function*() {
            const done = yield* counters.reserve([take(counter, 50)])
            yield* counters.settle(done._tag === "Admitted" ? done.id : "", [
              { counter, workspaceId: WORKSPACE, valueKey: "api_key:k1", reserved: 50, used: 50, alertThreshold: null }
            ])
            assert.strictEqual((yield* counters.reserve([take(counter, 40)]))._tag, "Admitted")
            yield* TestClock.adjust(Duration.sum(LEASE, Duration.seconds(1)))
            // the 40 lapsed and is given back, the settled 50 stays: 49 + 1 reach the limit, then
            // nothing; had the settled reservation been given back a second time, a third would pass
            assert.strictEqual((yield* counters.reserve([take(counter, 49)]))._tag, "Admitted")
            assert.strictEqual((yield* counters.reserve([take(counter, 1)]))._tag, "Admitted")
            assert.strictEqual((yield* counters.reserve([take(counter, 1)]))._tag, "Refused")
          })
        )
      }))

    it.effect("a lapsed lease on a counter no request touches again is given back by the sweep", () =>
      Effect.gen(function*() {
        const idle = fresh()
        // killed holding 100 on a counter nobody uses again
        assert.strictEqual((yield* inProcess((counters) => counters.reserve([take(idle, 100)])))._tag, "Admitted")
        yield* inProcess((counters) =>
          Effect.gen(function*() {
            yield* TestClock.adjust(LEASE)
            // requests on other counters go on: their reservations start the sweep an interval later
            const busy = yield* counters.reserve([take(fresh(), 1)])
            assert.strictEqual(busy._tag, "Admitted")
            assert.deepStrictEqual(yield* held(idle), { reserved: 100, leases: 1 })
            assert.deepStrictEqual(yield* sweptBack(held(idle)), { reserved: 0, leases: 0 })
          })
        )
      }))
  })

for (const { layer: database, name } of TestDatabase.dialects) {
  layer(database)(`the lease sweep on ${name}`, (it) => {
    it.effect("gives back at most 100 counters a run, and carries on with the rest without new requests", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const batch = `bulk-${randomBytes(6).toString("hex")}`
        const open = Effect.map(
          sql`SELECT COUNT(*) AS open FROM usage_reservations WHERE counter_key LIKE ${`${batch}-%`}`,
          (rows) => Number(rows[0]?.["open"] ?? Number.NaN)
        )
        // a process: its own counters layer, closed (killed) when the effect ends
        const inProcess = Effect.provide(Layer.provide(UsageCounters.UsageCounters.layerSql, lease))
        // killed holding leases on 150 counters nobody uses again
        yield* Effect.gen(function*() {
          const killed = yield* UsageCounters.UsageCounters
          for (let index = 0; index < 150; index++) yield* killed.reserve([take(`${batch}-${index}:0:all`, 1)])
        }).pipe(inProcess)
        assert.strictEqual(yield* open, 150)
        yield* Effect.gen(function*() {
          const live = yield* UsageCounters.UsageCounters
          yield* TestClock.adjust(LEASE)
          yield* live.reserve([take(fresh(), 1)])
          yield* TestClock.adjust(UsageCounters.LeaseSweepInterval)
          // other tests' lapsed leases may share the first run; ours are 150, so at least 50 wait
          assert.isAtLeast(yield* open, 50)
          assert.deepStrictEqual(
            yield* sweptBack(Effect.map(open, (leases) => ({ reserved: 0, leases }))),
            { reserved: 0, leases: 0 }
          )
        }).pipe(inProcess)
      }))
  })
  leaseSuite(
    name,
    database,
    UsageCounters.UsageCounters.layerSql.pipe(Layer.provide(lease)),
    (counter) =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const key = `${counter}|api_key:k1`
        const counters = yield* sql`SELECT reserved FROM usage_counters WHERE counter_key = ${key}`
        const leases = yield* sql`SELECT COUNT(*) AS open FROM usage_reservations WHERE counter_key = ${key}`
        return {
          reserved: Number(counters[0]?.["reserved"] ?? Number.NaN),
          leases: Number(leases[0]?.["open"] ?? Number.NaN)
        }
      })
  )
}

// a prefix of its own, so runs never see each other's counters
const PREFIX = `switchyard-test:${randomBytes(6).toString("hex")}:`
leaseSuite(
  "redis",
  RedisConnection.layer({ url: "redis://127.0.0.1:6379" }),
  RedisUsageCounters.layerStore({ prefix: PREFIX }).pipe(Layer.provide(lease)),
  (counter) =>
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const hash = RedisUsageCounters.counterKey(PREFIX, WORKSPACE, counter)
      const reserved = yield* redis.send<string | null>("HGET", hash, "r:api_key:k1")
      return { reserved: Number(reserved ?? Number.NaN), leases: yield* redis.send<number>("ZCARD", `${hash}:leases`) }
    })
)
