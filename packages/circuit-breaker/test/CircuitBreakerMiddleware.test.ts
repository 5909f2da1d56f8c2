import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CircuitBreakerMiddleware, CircuitKey } from "@switchyard/circuit-breaker"
import { RedisCircuitStore } from "@switchyard/circuit-breaker/redis"
import {
  ConfigCompiler,
  type Dispatch,
  GatewayError,
  GatewayResponse,
  ProviderRegistry,
  type ProviderTarget,
  Stage,
  Strategy
} from "@switchyard/core"
import { GatewayConfig } from "@switchyard/protocol"
import { RedisConnection } from "@switchyard/redis"
import { ConfigProvider, Context, Effect, Exit, Fiber, Layer, Result, Schedule } from "effect"
import { CircuitBreaker, Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import { randomUUID } from "node:crypto"
import * as Upstream from "./support/Upstream.ts"

const COOLDOWN = 30_000

/** The target's upstream behind the middleware the factory builds for it. */
const guarded = (target: ProviderTarget.ProviderTarget) =>
  Effect.gen(function*() {
    const middlewareFor = yield* CircuitBreakerMiddleware.factory
    const upstream = new Upstream.Upstream()
    const dispatch = (yield* middlewareFor(target, "config"))(upstream.dispatch)
    return { upstream, call: dispatch(Upstream.request) }
  })

const stateOf = (target: ProviderTarget.ProviderTarget) =>
  Effect.gen(function*() {
    const store = yield* CircuitBreaker.CircuitBreakerStore
    return (yield* store.state(CircuitKey.of(target)))._tag
  })

/** Runs `call` `times` times, ignoring how each attempt ends. */
const attempt = (call: Effect.Effect<unknown, unknown>, times: number) =>
  Effect.repeat(Effect.exit(call), { times: times - 1 })

const assertRejected = (error: GatewayError.GatewayError, provider = "openai") => {
  assert.strictEqual(error._tag, "TargetsUnavailable")
  assert.strictEqual(GatewayError.toHttp(error).status, 503)
  assert.strictEqual(GatewayError.toHttp(error).body.error.message, `${provider}: circuit open`)
}

const memory = Effect.provide(CircuitBreakerMiddleware.layerMemory)

describe("CircuitBreakerMiddleware", () => {
  describe("opening and closing", () => {
    it.effect("opens after failure_threshold consecutive failures", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 2)
        assert.strictEqual(yield* stateOf(target), "Closed")
        yield* attempt(call, 1)
        assert.strictEqual(yield* stateOf(target), "Open")
        assert.strictEqual(upstream.calls, 3)
      }).pipe(memory))

    it.effect("a success between failures starts the count again", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 2)
        upstream.answer = Upstream.ok
        yield* call
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 2)
        assert.strictEqual(yield* stateOf(target), "Closed")
      }).pipe(memory))

    it.effect("fails fast with 503 while open, without calling the target", () =>
      Effect.gen(function*() {
        const { call, upstream } = yield* guarded(Upstream.target())
        upstream.answer = Upstream.status(503)
        yield* attempt(call, 3)
        upstream.answer = Upstream.ok
        assertRejected(yield* Effect.flip(call))
        assertRejected(yield* Effect.flip(call))
        assert.strictEqual(upstream.calls, 3)
      }).pipe(memory))

    it.effect("admits a probe once cooldown_interval has passed, not before", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 3)
        upstream.answer = Upstream.ok
        yield* TestClock.adjust(COOLDOWN - 1)
        assertRejected(yield* Effect.flip(call))
        assert.strictEqual(upstream.calls, 3)
        yield* TestClock.adjust(1)
        yield* call
        assert.strictEqual(upstream.calls, 4)
      }).pipe(memory))

    it.effect("rejects other calls while the probe runs", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 3)
        yield* TestClock.adjust(COOLDOWN)
        upstream.answer = () => Effect.as(Effect.sleep("1 second"), GatewayResponse.json({ ok: true }))
        const probe = yield* Effect.forkChild(call, { startImmediately: true })
        assert.strictEqual(yield* stateOf(target), "HalfOpen")
        assertRejected(yield* Effect.flip(call))
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(probe)
        assert.strictEqual(upstream.calls, 4)
      }).pipe(memory))

    it.effect("closes after a successful probe", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 3)
        yield* TestClock.adjust(COOLDOWN)
        upstream.answer = Upstream.ok
        yield* call
        assert.strictEqual(yield* stateOf(target), "Closed")
        yield* call
        yield* call
        assert.strictEqual(upstream.calls, 6)
      }).pipe(memory))

    it.effect("reopens after a failed probe, for another cooldown_interval", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 3)
        yield* TestClock.adjust(COOLDOWN)
        yield* Effect.flip(call)
        assert.strictEqual(yield* stateOf(target), "Open")
        assertRejected(yield* Effect.flip(call))
        assert.strictEqual(upstream.calls, 4)
        yield* TestClock.adjust(COOLDOWN)
        upstream.answer = Upstream.ok
        yield* call
        assert.strictEqual(upstream.calls, 5)
      }).pipe(memory))
  })

  describe("what counts as a failure", () => {
    it.effect("by default a 429 does not count and a 503 does", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(429)
        yield* attempt(call, 5)
        assert.strictEqual(yield* stateOf(target), "Closed")
        upstream.answer = Upstream.status(503)
        yield* attempt(call, 3)
        assert.strictEqual(yield* stateOf(target), "Open")
      }).pipe(memory))

    it.effect("a 429 between failures counts as a success by default", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(502)
        yield* attempt(call, 2)
        upstream.answer = Upstream.status(429)
        yield* attempt(call, 1)
        upstream.answer = Upstream.status(502)
        yield* attempt(call, 2)
        assert.strictEqual(yield* stateOf(target), "Closed")
      }).pipe(memory))

    it.effect("by default connection errors and timeouts count", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.unreachable
        yield* attempt(call, 2)
        upstream.answer = Upstream.timedOut
        yield* attempt(call, 1)
        assert.strictEqual(yield* stateOf(target), "Open")
      }).pipe(memory))

    it.effect("failure_status_codes replaces the default statuses", () =>
      Effect.gen(function*() {
        const target = Upstream.target({
          failure_threshold: 2,
          cooldown_interval: COOLDOWN,
          failure_status_codes: [429]
        })
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.status(503)
        yield* attempt(call, 4)
        assert.strictEqual(yield* stateOf(target), "Closed")
        upstream.answer = Upstream.status(429)
        yield* attempt(call, 2)
        assert.strictEqual(yield* stateOf(target), "Open")
      }).pipe(memory))

    it.effect("with failure_status_codes, connection errors and timeouts still count", () =>
      Effect.gen(function*() {
        const target = Upstream.target({
          failure_threshold: 2,
          cooldown_interval: COOLDOWN,
          failure_status_codes: [429]
        })
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.unreachable
        yield* attempt(call, 1)
        upstream.answer = Upstream.timedOut
        yield* attempt(call, 1)
        assert.strictEqual(yield* stateOf(target), "Open")
      }).pipe(memory))

    it.effect("the gateway's own errors neither count nor break a run of failures", () =>
      Effect.gen(function*() {
        const target = Upstream.target()
        const { call, upstream } = yield* guarded(target)
        upstream.answer = Upstream.invalid
        yield* attempt(call, 5)
        assert.strictEqual(yield* stateOf(target), "Closed")
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 2)
        upstream.answer = Upstream.invalid
        yield* attempt(call, 1)
        upstream.answer = Upstream.status(500)
        yield* attempt(call, 1)
        assert.strictEqual(yield* stateOf(target), "Open")
      }).pipe(memory))

    it.effect("an upstream error passes through unchanged while the circuit is closed", () =>
      Effect.gen(function*() {
        const { call, upstream } = yield* guarded(Upstream.target())
        upstream.answer = Upstream.status(503)
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag, "UpstreamStatus")
        assert.strictEqual(GatewayError.upstreamStatusOf(error), 503)
      }).pipe(memory))
  })

  describe("one circuit per target", () => {
    it.effect("targets with different credentials have independent circuits", () =>
      Effect.gen(function*() {
        const first = yield* guarded(Upstream.target(undefined, { api_key: "sk-first" }))
        const second = yield* guarded(Upstream.target(undefined, { api_key: "sk-second" }))
        first.upstream.answer = Upstream.status(500)
        yield* attempt(first.call, 3)
        assertRejected(yield* Effect.flip(first.call))
        yield* second.call
        assert.strictEqual(second.upstream.calls, 1)
      }).pipe(memory))

    it.effect("the same target compiled twice (two configs) shares one circuit", () =>
      Effect.gen(function*() {
        const first = yield* guarded(Upstream.target())
        const second = yield* guarded(Upstream.target())
        first.upstream.answer = Upstream.status(500)
        yield* attempt(first.call, 3)
        assertRejected(yield* Effect.flip(second.call))
        assert.strictEqual(second.upstream.calls, 0)
      }).pipe(memory))

    it.effect("targets pinning different models have independent circuits", () =>
      Effect.gen(function*() {
        const first = yield* guarded(Upstream.target(undefined, { override_params: { model: "gpt-4o" } }))
        const second = yield* guarded(Upstream.target(undefined, { override_params: { model: "gpt-4o-mini" } }))
        first.upstream.answer = Upstream.status(500)
        yield* attempt(first.call, 3)
        yield* second.call
        assert.strictEqual(second.upstream.calls, 1)
      }).pipe(memory))
  })

  describe("the factory", () => {
    it.effect("gives a target without cb_config no middleware at all", () =>
      Effect.gen(function*() {
        const middlewareFor = yield* CircuitBreakerMiddleware.factory
        const middleware = yield* middlewareFor({ provider: "openai", api_key: Upstream.SECRET }, "config")
        const dispatch: Dispatch.Dispatch = () => Effect.succeed(GatewayResponse.json({}))
        assert.strictEqual(middleware(dispatch), dispatch)
      }).pipe(memory))

    // the stage reads cb_config as the config's decode left it: its rules are checked there, once
    it("a cb_config with a fractional failure_threshold is a 400 naming the field, where the config is decoded", () => {
      const decoded = GatewayConfig.decodeResult({
        strategy: { mode: "single" },
        targets: [{ provider: "openai", api_key: "sk" }, {
          provider: "openai",
          api_key: "sk",
          cb_config: { failure_threshold: 1.5, cooldown_interval: COOLDOWN }
        }]
      })
      assert.isTrue(
        Result.isFailure(decoded) && decoded.failure.param === "config.targets[1].cb_config.failure_threshold"
      )
    })

    it("a cooldown_interval under 30000 ms is a 400, where the config is decoded", () => {
      const decoded = GatewayConfig.decodeResult({
        provider: "openai",
        api_key: "sk",
        cb_config: { failure_threshold: 1, cooldown_interval: 29_999 }
      })
      assert.isTrue(Result.isFailure(decoded) && decoded.failure.param === "config.cb_config.cooldown_interval")
    })

    it.effect("applies a cb_config inherited from a strategy node to each leaf through the compiler", () =>
      Effect.gen(function*() {
        const upstreams = new Map<string, Upstream.Upstream>()
        const adapter: ProviderRegistry.ProviderAdapter = {
          names: ["openai"],
          make: (target) =>
            Effect.sync(() => {
              const upstream = new Upstream.Upstream()
              upstream.answer = Upstream.status(500)
              upstreams.set(target.api_key ?? "", upstream)
              return upstream.dispatch
            })
        }
        const node = {
          cb_config: { failure_threshold: 1, cooldown_interval: COOLDOWN },
          strategy: { mode: "single" as const },
          targets: [{ provider: "openai", api_key: "sk-leaf" }]
        }
        const circuit = yield* CircuitBreakerMiddleware.factory
        const dispatch = yield* ConfigCompiler.compile(node).pipe(
          Effect.provide([
            ProviderRegistry.ProviderRegistry.layer([adapter]),
            Strategy.Strategies.layerSingle,
            Stage.Stages.layerOf([Stage.make("circuit-breaker", "circuit-breaker", circuit)]).pipe(Layer.orDie)
          ])
        )
        yield* Effect.exit(dispatch(Upstream.request))
        const exit = yield* Effect.exit(dispatch(Upstream.request))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(upstreams.get("sk-leaf")?.calls, 1)
      }).pipe(memory))
  })

  describe("in Redis (the real server on 127.0.0.1:6379)", () => {
    const url = "redis://127.0.0.1:6379"

    /** A connection of the test's own, closed with the test. */
    const connection = Effect.gen(function*() {
      const context = yield* Layer.build(NodeRedis.layer({ url }))
      return yield* Effect.provideContext(Redis.Redis, context)
    })

    /** Deletes the keys matching `pattern` when the test ends. */
    const cleanUp = (redis: Redis.Redis["Service"], pattern: string) =>
      Effect.addFinalizer(() =>
        Effect.gen(function*() {
          const keys = yield* redis.send<ReadonlyArray<string>>("KEYS", pattern)
          if (keys.length > 0) yield* redis.send("DEL", ...keys)
        }).pipe(Effect.orDie)
      )

    /** A key prefix unique to this run, so runs never share circuits. */
    const freshPrefix = Effect.gen(function*() {
      const prefix = `switchyard-test:${randomUUID()}:`
      const redis = yield* connection
      yield* cleanUp(redis, `${prefix}*`)
      return { prefix, redis }
    })

    /**
     * A process's store over its own connection, once that connection has answered: these tests are
     * about sharing circuits, not outages, so a loaded machine (a slow first connect, a command
     * over the 150 ms deadline) must not make a store drop outcomes as if Redis were down.
     */
    const sharedStore = (prefix: string) =>
      RedisCircuitStore.layerStore({ prefix, deadline: "10 seconds" }).pipe(
        Layer.provide(
          RedisConnection.layer({ url }).pipe(
            Layer.tap((context) =>
              Effect.retry(Context.get(context, Redis.Redis).send("PING"), {
                schedule: Schedule.spaced("50 millis"),
                times: 100
              })
            )
          )
        )
      )

    /** One gateway process: its own connection and store. */
    const process = (
      layer: Layer.Layer<CircuitBreaker.CircuitBreakerStore, unknown>,
      target: ProviderTarget.ProviderTarget
    ) => Effect.flatMap(Layer.build(layer), (context) => guarded(target).pipe(Effect.provideContext(context)))

    it.live("two gateway processes share one circuit: failures through one open it for the other", () =>
      Effect.gen(function*() {
        const { prefix } = yield* freshPrefix
        const target = Upstream.target()
        const one = yield* process(sharedStore(prefix), target)
        const two = yield* process(sharedStore(prefix), target)
        one.upstream.answer = Upstream.status(500)
        yield* attempt(one.call, 2)
        yield* two.call
        one.upstream.answer = Upstream.status(500)
        yield* attempt(one.call, 3)
        assertRejected(yield* Effect.flip(two.call))
        assert.strictEqual(two.upstream.calls, 1)
      }).pipe(Effect.scoped))

    it.live("failures through both processes add up to one run of failures", () =>
      Effect.gen(function*() {
        const { prefix } = yield* freshPrefix
        const target = Upstream.target()
        const one = yield* process(sharedStore(prefix), target)
        const two = yield* process(sharedStore(prefix), target)
        one.upstream.answer = Upstream.unreachable
        two.upstream.answer = Upstream.status(503)
        yield* attempt(one.call, 1)
        yield* attempt(two.call, 1)
        yield* attempt(one.call, 1)
        assertRejected(yield* Effect.flip(one.call))
        assertRejected(yield* Effect.flip(two.call))
        assert.deepStrictEqual([one.upstream.calls, two.upstream.calls], [2, 1])
      }).pipe(Effect.scoped))

    it.live("stores each circuit under the prefix, and no secret in Redis keys", () =>
      Effect.gen(function*() {
        const { prefix, redis } = yield* freshPrefix
        const target = Upstream.target()
        const one = yield* process(sharedStore(prefix), target)
        one.upstream.answer = Upstream.status(500)
        yield* attempt(one.call, 3)
        const keys = yield* redis.send<ReadonlyArray<string>>("KEYS", `${prefix}*`)
        assert.deepStrictEqual(keys, [`${prefix}${CircuitKey.of(target)}`])
        for (const key of keys) assert.notInclude(key, Upstream.SECRET)
      }).pipe(Effect.scoped))

    it.live("layerFromEnv keeps circuits in Redis when REDIS_URL is set", () =>
      Effect.gen(function*() {
        // layerFromEnv uses the default prefix: a provider name unique to this run keeps it apart
        const provider = `test-${randomUUID()}`
        yield* cleanUp(yield* connection, `${RedisCircuitStore.DEFAULT_PREFIX}*${provider}*`)
        const target = Upstream.target(undefined, { provider })
        const env = ConfigProvider.layer(ConfigProvider.fromEnv({ env: { REDIS_URL: url } }))
        const one = yield* process(RedisCircuitStore.layerFromEnv.pipe(Layer.provide(env)), target)
        const two = yield* process(sharedStore(RedisCircuitStore.DEFAULT_PREFIX), target)
        one.upstream.answer = Upstream.status(500)
        yield* attempt(one.call, 3)
        assertRejected(yield* Effect.flip(two.call), provider)
      }).pipe(Effect.scoped))

    it.live("layerFromEnv keeps circuits in memory without REDIS_URL", () =>
      Effect.gen(function*() {
        const provider = `test-${randomUUID()}`
        const target = Upstream.target(undefined, { provider })
        const env = ConfigProvider.layer(ConfigProvider.fromEnv({ env: {} }))
        const one = yield* process(RedisCircuitStore.layerFromEnv.pipe(Layer.provide(env)), target)
        const two = yield* process(RedisCircuitStore.layerFromEnv.pipe(Layer.provide(env)), target)
        one.upstream.answer = Upstream.status(500)
        yield* attempt(one.call, 3)
        assertRejected(yield* Effect.flip(one.call), provider)
        yield* two.call
        assert.strictEqual(two.upstream.calls, 1)
      }).pipe(Effect.scoped))
  })
})
