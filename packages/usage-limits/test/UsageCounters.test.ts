import { assert, layer } from "@effect/vitest"
import { TestDatabase, WriteLock } from "@switchyard/storage/testing"
import { UsageCounters } from "@switchyard/usage-limits"
import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
import { Deferred, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"

const stores: ReadonlyArray<{
  readonly name: string
  readonly layer: Layer.Layer<UsageCounters.UsageCounters, unknown>
}> = [
  ...TestDatabase.dialects.map(({ layer: database, name }) => ({
    name,
    layer: UsageCounters.UsageCounters.layerSql.pipe(Layer.provide(database))
  })),
  {
    name: "redis",
    layer: RedisUsageCounters.layer({
      url: "redis://127.0.0.1:6379",
      // a prefix of its own, so runs never see each other's counters
      prefix: `switchyard-test:${randomBytes(6).toString("hex")}:`
    })
  }
]

const fresh = () => `policy-${randomBytes(6).toString("hex")}:0:all`

const WORKSPACE = "ws-1"

const reservation = (counter: string, valueKey: string, limit: number, amount: number) => ({
  counter,
  workspaceId: WORKSPACE,
  policyId: counter.split(":")[0] ?? "",
  valueKey,
  limit,
  amount
})

const counters = UsageCounters.UsageCounters

for (const { layer: store, name } of stores) {
  layer(store)(`UsageCounters on ${name}`, (it) => {
    it.effect("admits while settled plus reserved is below the limit, and counts per value key", () =>
      Effect.gen(function*() {
        const service = yield* counters
        const counter = fresh()
        const take = (valueKey: string) => service.reserve([reservation(counter, valueKey, 50, 20)])
        assert.strictEqual((yield* take("a"))._tag, "Admitted")
        assert.strictEqual((yield* take("a"))._tag, "Admitted")
        assert.strictEqual((yield* take("a"))._tag, "Admitted")
        assert.deepStrictEqual(yield* take("a"), { _tag: "Refused", index: 0 })
        assert.strictEqual((yield* take("b"))._tag, "Admitted")
      }))

    it.effect("settles to the real usage, releases the rest, and raises an alert once", () =>
      Effect.gen(function*() {
        const service = yield* counters
        const counter = fresh()
        const reserveAndSettle = (used: number) =>
          Effect.flatMap(
            service.reserve([reservation(counter, "a", 100, 40)]),
            (result) =>
              service.settle(result._tag === "Admitted" ? result.id : "refused", [
                { counter, workspaceId: WORKSPACE, valueKey: "a", reserved: 40, used, alertThreshold: 25 }
              ])
          )
        assert.deepStrictEqual(yield* reserveAndSettle(20), [])
        assert.deepStrictEqual(yield* reserveAndSettle(20), [0])
        assert.deepStrictEqual(yield* reserveAndSettle(20), [])
        assert.deepStrictEqual(yield* service.usage(WORKSPACE, counter), [{ valueKey: "a", usage: 60, alerted: true }])
        // settled plus reserved: 60 + 40 is the limit, so the reservations were all given back
        assert.strictEqual((yield* service.reserve([reservation(counter, "a", 100, 40)]))._tag, "Admitted")
        assert.strictEqual((yield* service.reserve([reservation(counter, "a", 100, 40)]))._tag, "Refused")
      }))

    it.effect("takes every counter of a request or none: a refusal on one leaves the others untouched", () =>
      Effect.gen(function*() {
        const service = yield* counters
        const roomy = fresh()
        const full = fresh()
        yield* service.reserve([reservation(full, "a", 10, 10)])
        const refused = yield* service.reserve([reservation(roomy, "a", 30, 20), reservation(full, "a", 10, 5)])
        assert.deepStrictEqual(refused, { _tag: "Refused", index: 1 })
        // had the refused request kept its 20 on `roomy`, this one would be refused
        assert.strictEqual((yield* service.reserve([reservation(roomy, "a", 30, 20)]))._tag, "Admitted")
      }))

    it.effect("under 100 concurrent reservations admits exactly as many as the limit holds", () =>
      Effect.gen(function*() {
        const service = yield* counters
        const counter = fresh()
        const results = yield* Effect.forEach(
          Array.from({ length: 100 }, () => reservation(counter, "a", 200, 20)),
          (one) => service.reserve([one]),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((result) => result._tag === "Admitted").length, 10)
      }))
  })
}

// both on a database file, the embedded gateway's arrangement (the writer thread needs one)
const localStores = [
  { name: "layerLocal", counters: UsageCounters.UsageCounters.layerLocal },
  { name: "layerLocalSqliteWriter", counters: UsageCounters.UsageCounters.layerLocalSqliteWriter }
] as const

for (const { counters: countersLayer, name } of localStores) {
  layer(TestDatabase.layerSqliteFile)(`UsageCounters.${name}`, (it) => {
    const local = <A, E>(use: (service: UsageCounters.UsageCounters["Service"]) => Effect.Effect<A, E>) =>
      UsageCounters.UsageCounters.use(use).pipe(Effect.provide(countersLayer))

    it.effect("keeps settled usage across a restart: written when the layer closes, read by the next one", () =>
      Effect.gen(function*() {
        const counter = fresh()
        yield* local((service) =>
          Effect.andThen(
            service.reserve([reservation(counter, "a", 50, 30)]),
            service.settle("", [{
              counter,
              workspaceId: WORKSPACE,
              valueKey: "a",
              reserved: 30,
              used: 20,
              alertThreshold: null
            }])
          )
        )
        // an open reservation is not kept: a crash or a restart releases it
        yield* local((service) => service.reserve([reservation(counter, "a", 50, 30)]))
        assert.deepStrictEqual(yield* local((service) => service.usage(WORKSPACE, counter)), [
          { valueKey: "a", usage: 20, alerted: false }
        ])
        const results = yield* local((service) =>
          Effect.all([
            service.reserve([reservation(counter, "a", 50, 30)]),
            service.reserve([reservation(counter, "a", 50, 30)])
          ])
        )
        assert.deepStrictEqual(results.map((result) => result._tag), ["Admitted", "Refused"])
      }))

    it.effect("under 100 concurrent reservations admits exactly as many as the limit holds", () =>
      Effect.gen(function*() {
        const counter = fresh()
        const results = yield* local((service) =>
          Effect.forEach(
            Array.from({ length: 100 }, () => reservation(counter, "a", 200, 20)),
            (one) => service.reserve([one]),
            { concurrency: "unbounded" }
          )
        )
        assert.strictEqual(results.filter((result) => result._tag === "Admitted").length, 10)
      }))
  })
}

layer(TestDatabase.layerSqliteFile)("UsageCounters.layerLocalSqliteWriter on the event loop", (it) => {
  it.effect("writes its batch in the writer thread: while another connection holds the write lock, the event loop runs on", () =>
    Effect.gen(function*() {
      const service = yield* counters
      const counter = fresh()
      yield* service.reserve([reservation(counter, "a", 100, 30)])
      yield* service.settle("", [{
        counter,
        workspaceId: WORKSPACE,
        valueKey: "a",
        reserved: 30,
        used: 25,
        alertThreshold: null
      }])
      // `usage` writes what is settled first: that write waits for the lock
      const locked = yield* WriteLock.underWriteLock(service.usage(WORKSPACE, counter))
      assert.isTrue(locked.eventLoopRan)
      assert.isTrue(locked.waited)
      assert.deepStrictEqual(locked.result, [{ valueKey: "a", usage: 25, alerted: false }])
    }).pipe(Effect.provide(UsageCounters.UsageCounters.layerLocalSqliteWriter)))
})

layer(RedisUsageCounters.layer({
  url: "redis://127.0.0.1:6379",
  prefix: `switchyard-test:${randomBytes(6).toString("hex")}:`
}))("RedisUsageCounters.settleSent", (it) => {
  it.effect("what this process reserves after a settlement was sent meets it applied; its alert is answered in the background", () =>
    Effect.gen(function*() {
      const service = yield* counters
      const settleSent = service.settleSent
      assert.isDefined(settleSent)
      if (settleSent === undefined) return
      const counter = fresh()
      const first = yield* service.reserve([reservation(counter, "a", 100, 60)])
      assert.strictEqual(first._tag, "Admitted")
      const answered = yield* Deferred.make<ReadonlyArray<number>>()
      yield* settleSent(
        first._tag === "Admitted" ? first.id : "",
        [{ counter, workspaceId: WORKSPACE, valueKey: "a", reserved: 60, used: 10, alertThreshold: 5 }],
        (crossed) => Deferred.succeed(answered, crossed)
      )
      // 10 settled + 60 reserved is below 100 only if the first reservation was settled first
      assert.strictEqual((yield* service.reserve([reservation(counter, "a", 100, 60)]))._tag, "Admitted")
      assert.deepStrictEqual(yield* Deferred.await(answered), [0])
      assert.deepStrictEqual(yield* service.usage(WORKSPACE, counter), [{ valueKey: "a", usage: 10, alerted: true }])
    }))
})
