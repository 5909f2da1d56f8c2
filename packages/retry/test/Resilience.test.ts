import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  type ConfigNode,
  type Dispatch,
  GatewayError,
  ProviderRegistry,
  Stage,
  Strategy
} from "@switchyard/core"
import { Resilience, Retry } from "@switchyard/retry"
import { Effect, Fiber, Layer, Random } from "effect"
import { TestClock } from "effect/testing"
import { request } from "./support/FakeUpstream.ts"

/** An adapter whose calls never answer; it records when each began and whether it was interrupted. */
const stalledAdapter = () => {
  const state = { calls: [] as Array<number>, interrupted: 0 }
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["fake"],
    make: () =>
      Effect.succeed(() =>
        Effect.clockWith((clock) => {
          state.calls.push(clock.currentTimeMillisUnsafe())
          return Effect.never
        }).pipe(Effect.onInterrupt(() => Effect.sync(() => void state.interrupted++)))
      )
  }
  return { adapter, state }
}

/** The compiler as the app builds it: with the registry, the resilience stages and any others. */
const compilerWith = (
  adapter: ProviderRegistry.ProviderAdapter,
  others: ReadonlyArray<Layer.Layer<never, Stage.StageConflict, Stage.Stages>> = []
) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([Resilience.layer, ...others]),
    Layer.provide([
      ProviderRegistry.ProviderRegistry.layer([adapter]),
      Strategy.Strategies.layerSingle,
      Stage.Stages.layer
    ]),
    Layer.orDie
  )

const dispatchFor = (config: ConfigNode.ConfigNode) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("test", Effect.succeed(config)))

// a decoded GatewayConfig: `retry` rides along although ConfigNode does not name it
const decodedConfig = {
  retry: { attempts: 2 },
  request_timeout: 1000,
  strategy: { mode: "single" as const },
  targets: [{ provider: "fake", api_key: "sk" }]
}
const retriedTree: ConfigNode.ConfigNode = decodedConfig

describe("Resilience", () => {
  it.effect("adds retry and the timeout, which their phases put outermost and innermost", () =>
    Effect.gen(function*() {
      const between = Stage.layer(
        Effect.succeed(Stage.make("circuit-breaker", "between", (_target) => Effect.succeed((next) => next)))
      )
      const phases = yield* Effect.flatMap(Stage.Stages, (stages) => stages.ordered).pipe(
        Effect.provide(Layer.provideMerge(Layer.mergeAll(between, Resilience.layer), Stage.Stages.layer))
      )
      assert.deepStrictEqual(phases.map((stage) => stage.name), ["retry", "between", "request-timeout"])
    }))

  it.effect("gives each attempt its own timeout, inside the retries a leaf inherited", () =>
    Effect.gen(function*() {
      const fake = stalledAdapter()
      const dispatch = yield* dispatchFor(retriedTree).pipe(Effect.provide(compilerWith(fake.adapter)))
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request()).pipe(Random.withSeed("s"))))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(fake.state.calls.length, 3)
      assert.strictEqual(fake.state.interrupted, 3)
      assert.strictEqual(error._tag, "UpstreamTimeout")
      const failure = GatewayError.toHttp(error)
      assert.strictEqual(failure.status, 408)
      assert.strictEqual(failure.headers[Retry.ATTEMPT_COUNT_HEADER], "2")
      // each retry starts a full timeout after the previous one, plus its backoff (< 100, < 200 ms)
      const [first = 0, second = 0, third = 0] = fake.state.calls
      assert.isTrue(second - first >= 1000 && second - first < 1100, `second call at ${second}`)
      assert.isTrue(third - second >= 1000 && third - second < 1200, `third call at ${third}`)
    }))

  it.effect("lets the middleware between them see every attempt and its timeout", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const recorder: Stage.StageFactory = () =>
        Effect.succeed((next: Dispatch.Dispatch): Dispatch.Dispatch => (req) =>
          next(req).pipe(Effect.tapError((error) => Effect.sync(() => void seen.push(error._tag))))
        )
      const fake = stalledAdapter()
      const dispatch = yield* dispatchFor(retriedTree).pipe(
        Effect.provide(
          compilerWith(fake.adapter, [Stage.layer(Effect.succeed(Stage.make("circuit-breaker", "recorder", recorder)))])
        )
      )
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request())))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen, ["UpstreamTimeout", "UpstreamTimeout", "UpstreamTimeout"])
    }))
})
