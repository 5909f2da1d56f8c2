/**
 * The Redis counters on a real three-node Redis Cluster (started here from `redis-server`; skipped
 * when it is not installed). A cluster runs a script only when all its keys live in one slot
 * (`CROSSSLOT` otherwise): a request matching several policies, across workspaces spread over the
 * nodes, must be admitted, refused and settled as on one Redis.
 */
import { assert, describe, layer } from "@effect/vitest"
import { UsageCounters } from "@switchyard/usage-limits"
import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
import { Duration, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import * as LocalCluster from "./support/LocalCluster.ts"

const LEASE = Duration.minutes(2)

const counters = RedisUsageCounters.layerStore().pipe(
  Layer.provide(Layer.succeed(UsageCounters.ReservationLease, LEASE)),
  Layer.provideMerge(LocalCluster.layer)
)

const take = (workspaceId: string, policyId: string, amount: number) => ({
  counter: `${policyId}:0:all`,
  workspaceId,
  policyId,
  valueKey: "api_key:k1",
  limit: 100,
  amount
})

/** Workspaces whose counters live on different nodes (checked by the first test). */
const WORKSPACES = ["ws-a", "ws-b", "ws-c", "ws-d", "ws-e", "ws-f"]

if (!LocalCluster.available) {
  describe.skip("UsageCounters on a 3-node Redis Cluster (skipped: redis-server or redis-cli is not on the PATH)", () => {})
} else {
  layer(counters, { timeout: 30_000 })("UsageCounters on a 3-node Redis Cluster", (it) => {
    it.effect("the workspaces under test live on more than one node", () =>
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        // CLUSTER SLOTS: [first slot, last slot, [host, port, id], …] per range
        const ranges = yield* redis.send<ReadonlyArray<readonly [number, number, readonly [string, number]]>>(
          "CLUSTER",
          "SLOTS"
        )
        const nodeOf = (slot: number) => ranges.find(([first, last]) => slot >= first && slot <= last)?.[2][1]
        const slots = yield* Effect.forEach(
          WORKSPACES,
          (workspace) => redis.send<number>("CLUSTER", "KEYSLOT", RedisUsageCounters.counterKey("p:", workspace, "x"))
        )
        assert.isAbove(new Set(slots.map(nodeOf)).size, 1)
      }))

    it.effect("reserves and settles several policies of one request at once, in every workspace", () =>
      Effect.gen(function*() {
        const service = yield* UsageCounters.UsageCounters
        for (const workspace of WORKSPACES) {
          const both = [take(workspace, "p1", 60), take(workspace, "p2", 30)]
          const first = yield* service.reserve(both)
          assert.strictEqual(first._tag, "Admitted")
          // p1 holds 60 < 100: admitted again, then full
          assert.strictEqual((yield* service.reserve(both))._tag, "Admitted")
          assert.deepStrictEqual(yield* service.reserve(both), { _tag: "Refused", index: 0 })
          yield* service.settle(first._tag === "Admitted" ? first.id : "", [
            {
              counter: "p1:0:all",
              workspaceId: workspace,
              valueKey: "api_key:k1",
              reserved: 60,
              used: 5,
              alertThreshold: 4
            },
            {
              counter: "p2:0:all",
              workspaceId: workspace,
              valueKey: "api_key:k1",
              reserved: 30,
              used: 5,
              alertThreshold: null
            }
          ])
          assert.deepStrictEqual(yield* service.usage(workspace, "p1:0:all"), [
            { valueKey: "api_key:k1", usage: 5, alerted: true }
          ])
        }
      }))

    it.effect("a killed process's reservations lapse with their lease", () =>
      Effect.gen(function*() {
        const service = yield* UsageCounters.UsageCounters
        const held = [take("ws-lease", "p3", 100), take("ws-lease", "p4", 100)]
        assert.strictEqual((yield* service.reserve(held))._tag, "Admitted")
        assert.deepStrictEqual(yield* service.reserve(held), { _tag: "Refused", index: 0 })
        yield* TestClock.adjust(LEASE)
        assert.strictEqual((yield* service.reserve(held))._tag, "Admitted")
      }))

    it.effect("keys of two workspaces in one script are refused by the cluster (what the hash tag avoids)", () =>
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        const [a, b] = yield* Effect.forEach(
          ["ws-a", "ws-b"],
          (workspace) => redis.send<number>("CLUSTER", "KEYSLOT", RedisUsageCounters.counterKey("p:", workspace, "x"))
        )
        assert.notStrictEqual(a, b)
        const error = yield* Effect.flip(
          redis.send(
            "EVAL",
            "return 1",
            "2",
            RedisUsageCounters.counterKey("p:", "ws-a", "x"),
            RedisUsageCounters.counterKey("p:", "ws-b", "x")
          )
        )
        assert.match(String(error.cause), /CROSSSLOT/)
      }))
  })
}
