/**
 * Redis counters of a `periodic_reset` policy expire some time after their period ends, so past
 * periods do not pile up; a cumulative policy's counters stay. Requests go through the stage on
 * the real Redis, at times set on the test clock; each key's expiry is read with `PTTL`.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  type Dispatch,
  GatewayError,
  GatewayResponse,
  ProviderRegistry,
  Stage,
  Strategy
} from "@switchyard/core"
import { RedisConnection } from "@switchyard/redis"
import { Database } from "@switchyard/storage"
import { RatePolicies, UsageCounters, UsageLimits, UsagePolicies } from "@switchyard/usage-limits"
import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
import { Duration, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"
import { request } from "./support/Requests.ts"

const LEASE = Duration.minutes(15)
const PREFIX = `switchyard-test:${randomBytes(6).toString("hex")}:`

const provider: ProviderRegistry.ProviderAdapter = {
  names: ["openai"],
  make: () =>
    Effect.succeed(() =>
      Effect.succeed(GatewayResponse.json({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }))
    )
}

const stores = Layer.mergeAll(
  UsagePolicies.UsagePolicies.layer,
  RatePolicies.RatePolicies.layer,
  RedisUsageCounters.layerStore({ prefix: PREFIX }),
  RedisUsageCounters.layerWindows({ prefix: `${PREFIX}rate:` })
).pipe(
  Layer.provide(Layer.succeed(UsageCounters.ReservationLease, LEASE)),
  Layer.provideMerge(Database.layerSqlite(":memory:")),
  // the test reads the keys' expiry over the counters' own connection
  Layer.provideMerge(RedisConnection.layer({ url: "redis://127.0.0.1:6379" }))
)

const live = ConfigCompiler.ConfigCompiler.layer().pipe(
  Layer.provide([
    UsageLimits.stage(),
    Strategy.Strategies.layerSingle,
    ProviderRegistry.ProviderRegistry.layer([provider])
  ]),
  Layer.provide(Stage.Stages.layer),
  Layer.provideMerge(stores)
)

const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (one) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai", Effect.succeed({ provider: "openai" })))
    .pipe(Effect.flatMap((dispatch) => dispatch(one)))

const status = ask(request()).pipe(
  Effect.map((response) => response.status),
  Effect.catch((error) => Effect.succeed(GatewayError.toHttp(error).status))
)

const create = (periodic_reset: "monthly" | "weekly" | null) =>
  UsagePolicies.UsagePolicies.use((policies) =>
    policies.create("ws-1", {
      conditions: [{ key: "api_key", value: "*" }],
      group_by: [{ key: "api_key" }],
      type: "tokens",
      credit_limit: 1000,
      periodic_reset
    })
  )

/** The milliseconds until each of a counter's keys (its hash and its leases) expires: -1 never, -2 gone. */
const expiries = (counter: string) =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const hash = RedisUsageCounters.counterKey(PREFIX, "ws-1", counter)
    return {
      hash: yield* redis.send<number>("PTTL", hash),
      leases: yield* redis.send<number>("PTTL", `${hash}:leases`)
    }
  })

/** What is left of `until` (a time on the test clock) plus a lease and the grace, as `PTTL` reads it a moment later. */
const assertExpiresAt = (ttl: number, from: number, until: number) => {
  const expected = until + Duration.toMillis(LEASE) + Duration.toMillis(RedisUsageCounters.PERIOD_GRACE) - from
  assert.isAtMost(ttl, expected)
  assert.isAbove(ttl, expected - 5_000)
}

/**
 * Runs `test` on the stage over Redis with the test clock at `now`, set before the layers are
 * built: moving the clock decades later would run their timers all the way there.
 */
const at = <A, E>(now: number, test: Effect.Effect<A, E, Layer.Success<typeof live>>) =>
  Effect.andThen(TestClock.setTime(now), Effect.provide(test, live))

describe("Redis counters of past periods", () => {
  it.effect("a weekly counter expires a lease and a day after its week ends, set when it is written", () => {
    // 2026-11-29 is a Sunday: the week ends at Monday 00:00 UTC, twelve hours on
    const now = Date.parse("2026-11-29T12:00:00Z")
    return at(
      now,
      Effect.gen(function*() {
        const policy = yield* create("weekly")
        assert.strictEqual(yield* status, 200)
        const ttl = yield* expiries(`${policy.id}:${policy.epoch}:w2026-11-23`)
        assertExpiresAt(ttl.hash, now, Date.parse("2026-11-30T00:00:00Z"))
        assert.strictEqual(ttl.leases, -2, "a settled request leaves no lease, so no leases key")
      })
    )
  })

  it.effect("a monthly counter expires a lease and a day after its month ends", () => {
    const now = Date.parse("2026-11-03T08:00:00Z")
    return at(
      now,
      Effect.gen(function*() {
        const policy = yield* create("monthly")
        assert.strictEqual(yield* status, 200)
        const ttl = yield* expiries(`${policy.id}:${policy.epoch}:m2026-11`)
        assertExpiresAt(ttl.hash, now, Date.parse("2026-12-01T00:00:00Z"))
      })
    )
  })

  it.effect("a cumulative counter never expires", () =>
    at(
      Date.parse("2026-11-29T12:00:00Z"),
      Effect.gen(function*() {
        const policy = yield* create(null)
        assert.strictEqual(yield* status, 200)
        assert.strictEqual((yield* expiries(`${policy.id}:${policy.epoch}:all`)).hash, -1)
      })
    ))

  it.effect("an open reservation's lease expires with its counter", () => {
    const now = Date.parse("2026-11-29T12:00:00Z")
    const periodEnd = Date.parse("2026-11-30T00:00:00Z")
    return at(
      now,
      Effect.gen(function*() {
        const counters = yield* UsageCounters.UsageCounters
        const counter = `policy-${randomBytes(6).toString("hex")}:0:w2026-11-23`
        const taken = yield* counters.reserve([
          { counter, workspaceId: "ws-1", policyId: "p", valueKey: "api_key:k1", limit: 100, amount: 10, periodEnd }
        ])
        assert.strictEqual(taken._tag, "Admitted")
        const ttl = yield* expiries(counter)
        assertExpiresAt(ttl.hash, now, periodEnd)
        assertExpiresAt(ttl.leases, now, periodEnd)
      })
    )
  })

  it.effect("a settlement after its counter expired leaves nothing behind", () => {
    const periodEnd = Date.parse("2026-11-30T00:00:00Z")
    return at(
      Date.parse("2026-11-29T12:00:00Z"),
      Effect.gen(function*() {
        const counters = yield* UsageCounters.UsageCounters
        const counter = `policy-${randomBytes(6).toString("hex")}:0:w2026-11-23`
        const taken = yield* counters.reserve([
          { counter, workspaceId: "ws-1", policyId: "p", valueKey: "api_key:k1", limit: 100, amount: 10, periodEnd }
        ])
        // a stream that outlived its week by more than a lease and the grace
        yield* TestClock.adjust(Duration.days(3))
        yield* counters.settle(taken._tag === "Admitted" ? taken.id : "", [
          {
            counter,
            workspaceId: "ws-1",
            valueKey: "api_key:k1",
            reserved: 10,
            used: 5,
            alertThreshold: null,
            periodEnd
          }
        ])
        assert.deepStrictEqual(yield* expiries(counter), { hash: -2, leases: -2 })
      })
    )
  })
})
