/**
 * Reservation leases in the counters replicas share (SQLite or Postgres through `layerSql`, and
 * Redis): a process that reserved and was killed before settling leaves a reservation that stops
 * counting once its lease lapses. Each "process" is a counters layer of its own over the same
 * store, closed without settling; time moves on the test clock (Redis is given the clock's time).
 */
import { assert, layer } from "@effect/vitest"
import { TestDatabase } from "@switchyard/storage/testing"
import { UsageCounters } from "@switchyard/usage-limits"
import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
import { Duration, Effect, Layer } from "effect"
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

/** The tests on one store: `process` builds one process's counters over what `shared` gives every process. */
const leaseSuite = <R>(
  name: string,
  shared: Layer.Layer<R, unknown>,
  process: Layer.Layer<UsageCounters.UsageCounters, unknown, R>
) =>
  layer(shared)(`reservation leases on ${name}`, (it) => {
    // a process: its own counters layer, closed (killed) when the effect ends, settling nothing
    const inProcess = <A, E>(use: (counters: UsageCounters.UsageCounters["Service"]) => Effect.Effect<A, E>) =>
      UsageCounters.UsageCounters.use(use).pipe(Effect.provide(process))

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
  })
for (const { layer: database, name } of TestDatabase.dialects) {
  leaseSuite(name, database, UsageCounters.UsageCounters.layerSql.pipe(Layer.provide(lease)))
}
leaseSuite(
  "redis",
  Layer.empty,
  RedisUsageCounters.layer({
    url: "redis://127.0.0.1:6379",
    // a prefix of its own, so runs never see each other's counters
    prefix: `switchyard-test:${randomBytes(6).toString("hex")}:`
  }).pipe(Layer.provide(lease))
)
