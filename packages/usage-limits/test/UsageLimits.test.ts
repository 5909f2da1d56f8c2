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
import { Database } from "@switchyard/storage"
import { LocalWindows, RatePolicies, UsageCounters, UsageLimits, UsagePolicies } from "@switchyard/usage-limits"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { request } from "./support/Requests.ts"

/** A provider that reports 20 tokens a call, or answers what the test sets; it counts its calls. */
class Provider {
  calls = 0
  answer: () => Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> = () =>
    Effect.succeed(GatewayResponse.json({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }))
  readonly adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: () =>
      Effect.succeed(() =>
        Effect.suspend(() => {
          this.calls += 1
          return this.answer()
        })
      )
  }
}

/**
 * The stores behind the stage: in the database (every step an effect, as on Postgres), or this
 * process's own counters and windows (the embedded default, taken without an effect once loaded).
 */
const stores = {
  "database counters": UsageLimits.layerSql,
  "this process's counters": Layer.mergeAll(
    UsagePolicies.UsagePolicies.layer,
    UsageCounters.UsageCounters.layerLocal,
    RatePolicies.RatePolicies.layer,
    LocalWindows.layer
  )
}

const live = (provider: Provider, store: (typeof stores)[keyof typeof stores]) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      UsageLimits.stage(),
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer([provider.adapter])
    ]),
    Layer.provide(Stage.Stages.layer),
    Layer.provideMerge(store),
    Layer.provideMerge(Database.layerSqlite(":memory:"))
  )

const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (one) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai", Effect.succeed({ provider: "openai" })))
    .pipe(Effect.flatMap((dispatch) => dispatch(one)))

const create = (body: Partial<Parameters<UsagePolicies.UsagePolicies["Service"]["create"]>[1]>) =>
  UsagePolicies.UsagePolicies.use((policies) =>
    policies.create("ws-1", {
      conditions: [{ key: "api_key", value: "*" }],
      group_by: [{ key: "api_key" }],
      type: "tokens",
      credit_limit: 40,
      ...body
    })
  )

const status = (one = request()) =>
  ask(one).pipe(
    Effect.map((response) => response.status),
    Effect.catch((error) => Effect.succeed(GatewayError.toHttp(error).status))
  )

describe.each(Object.entries(stores))("usage limits around a provider, on %s", (_, store) => {
  it.effect("a monthly limit starts again at the first instant of the next month in UTC", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-11-30T23:58:00Z"))
      yield* create({ periodic_reset: "monthly" })
      assert.deepStrictEqual([yield* status(), yield* status(), yield* status()], [200, 200, 412])
      yield* TestClock.setTime(Date.parse("2026-11-30T23:59:59.999Z"))
      assert.strictEqual(yield* status(), 412)
      yield* TestClock.setTime(Date.parse("2026-12-01T00:00:00Z"))
      assert.deepStrictEqual([yield* status(), yield* status(), yield* status()], [200, 200, 412])
      assert.strictEqual(provider.calls, 4)
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a weekly limit starts again on Monday 00:00 UTC, and usage_map says when", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      // 2026-11-29 is a Sunday
      yield* TestClock.setTime(Date.parse("2026-11-29T12:00:00Z"))
      const policy = yield* create({ periodic_reset: "weekly" })
      assert.deepStrictEqual([yield* status(), yield* status(), yield* status()], [200, 200, 412])
      const before = yield* UsageLimits.usageMap(policy)
      assert.deepStrictEqual(before, {
        "api_key:key-1": { usage: 40, last_reset_at: "2026-11-23T00:00:00.000Z", alerted: false }
      })
      yield* TestClock.setTime(Date.parse("2026-11-30T00:00:00Z"))
      assert.strictEqual(yield* status(), 200)
      const after = yield* UsageLimits.usageMap(policy)
      assert.deepStrictEqual(after, {
        "api_key:key-1": { usage: 20, last_reset_at: "2026-11-30T00:00:00.000Z", alerted: false }
      })
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a cumulative limit never resets with time", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* create({})
      assert.deepStrictEqual([yield* status(), yield* status(), yield* status()], [200, 200, 412])
      yield* TestClock.adjust("400 days")
      assert.strictEqual(yield* status(), 412)
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a failed call releases its reservation: nothing is counted", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* create({ credit_limit: 20 })
      const ok = provider.answer
      provider.answer = () =>
        Effect.fail(new GatewayError.UpstreamStatus({ provider: "openai", status: 500, body: {}, headers: {} }))
      assert.strictEqual(yield* status(), 500)
      provider.answer = ok
      assert.deepStrictEqual([yield* status(), yield* status()], [200, 412])
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a call with no bound on its answer reserves the whole limit while it runs", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* create({ credit_limit: 1_000_000 })
      const gate = yield* Deferred.make<void>()
      const ok = provider.answer
      provider.answer = () => Effect.andThen(Deferred.await(gate), ok())
      // an unknown model and no max_tokens: nothing bounds the answer
      const unbounded = request({ body: { model: "my-own-model", messages: [{ role: "user", content: "hi" }] } })
      const first = yield* Effect.forkChild(status(unbounded))
      yield* Effect.yieldNow
      provider.answer = ok
      assert.strictEqual(yield* status(), 412)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(first), 200)
      assert.strictEqual(yield* status(), 200)
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a request the conditions do not match is neither counted nor refused", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* create({ credit_limit: 0, conditions: [{ key: "metadata.team", value: "blue" }] })
      assert.strictEqual(yield* status(request({ metadata: { team: "red" } })), 200)
      assert.strictEqual(yield* status(request({ metadata: { team: "blue" } })), 412)
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a requests-per-minute window refuses with 429 and Retry-After, and admits again a minute later", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* RatePolicies.RatePolicies.use((policies) =>
        policies.create("ws-1", {
          conditions: [{ key: "api_key", value: "*" }],
          group_by: [{ key: "api_key" }],
          type: "requests",
          unit: "rpm",
          value: 2
        })
      )
      assert.deepStrictEqual([yield* status(), yield* status()], [200, 200])
      const refused = GatewayError.toHttp(yield* Effect.flip(ask(request())))
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(refused.headers["retry-after"], "60")
      assert.strictEqual(refused.body.error.code, "rate_limit_exceeded")
      yield* TestClock.adjust("59 seconds")
      assert.strictEqual(yield* status(), 429)
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* status(), 200)
      assert.strictEqual(provider.calls, 3)
    }).pipe(Effect.provide(live(provider, store)))
  })

  it.effect("a request a rate limit refuses gives back what its usage limits reserved", () => {
    const provider = new Provider()
    return Effect.gen(function*() {
      yield* create({ credit_limit: 40 })
      yield* RatePolicies.RatePolicies.use((policies) =>
        policies.create("ws-1", {
          conditions: [{ key: "api_key", value: "*" }],
          group_by: [{ key: "api_key" }],
          type: "requests",
          unit: "rpm",
          value: 1
        })
      )
      assert.deepStrictEqual([yield* status(), yield* status()], [200, 429])
      yield* TestClock.adjust("1 minute")
      // had the refused request kept its reservation, the budget (20 used of 40) would refuse this one
      assert.strictEqual(yield* status(), 200)
      assert.strictEqual(provider.calls, 2)
    }).pipe(Effect.provide(live(provider, store)))
  })
})
