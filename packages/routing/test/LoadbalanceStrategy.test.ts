import { assert, describe, it } from "@effect/vitest"
import { type ConfigNode, GatewayError } from "@switchyard/core"
import { Effect, Random } from "effect"
import {
  answeredBy,
  compile,
  leaf,
  openCircuits,
  optionIndexOf,
  request,
  scriptedProvider,
  upstreamStatus
} from "./support/Fakes.ts"

const loadbalance = (targets: ReadonlyArray<ConfigNode.ConfigNode>): ConfigNode.ConfigNode => ({
  strategy: { mode: "loadbalance" },
  targets
})

/** How often each target answered over `draws` requests, under a seeded Random. */
const countAnswers = (config: ConfigNode.ConfigNode, draws: number, seed = "switchyard") =>
  Effect.gen(function*() {
    const provider = scriptedProvider()
    const dispatch = yield* compile(config, provider)
    const counts = new Map<unknown, number>()
    for (let i = 0; i < draws; i++) {
      const who = answeredBy(yield* dispatch(request()))
      counts.set(who, (counts.get(who) ?? 0) + 1)
    }
    return { counts, provider }
  }).pipe(Random.withSeed(seed))

describe("loadbalance", () => {
  it.effect("draws targets in proportion to their weights (1:3 over 10,000 draws is 25% ± 2%)", () =>
    Effect.gen(function*() {
      const draws = 10_000
      const { counts } = yield* countAnswers(loadbalance([leaf("a", { weight: 1 }), leaf("b", { weight: 3 })]), draws)
      const share = (counts.get("a") ?? 0) / draws
      // binomial standard deviation sqrt(0.25 * 0.75 / 10,000) ≈ 0.43%: ± 2% is more than 4.6 of them
      assert.isAtLeast(share, 0.23)
      assert.isAtMost(share, 0.27)
      assert.strictEqual((counts.get("a") ?? 0) + (counts.get("b") ?? 0), draws)
    }))

  it.effect("passes a chi-square test against the weights 1:2:7 (default weight 1)", () =>
    Effect.gen(function*() {
      const draws = 10_000
      const weights = { a: 1, b: 2, c: 7 }
      const config = loadbalance([leaf("a"), leaf("b", { weight: 2 }), leaf("c", { weight: 7 })])
      const { counts } = yield* countAnswers(config, draws)
      let chiSquare = 0
      for (const [key, weight] of Object.entries(weights)) {
        const expected = (draws * weight) / 10
        chiSquare += ((counts.get(key) ?? 0) - expected) ** 2 / expected
      }
      // 13.82 is the 99.9th percentile of chi-square with 2 degrees of freedom
      assert.isBelow(chiSquare, 13.82)
    }))

  it.effect("draws the same targets again under the same seed", () =>
    Effect.gen(function*() {
      const config = loadbalance([leaf("a"), leaf("b"), leaf("c")])
      const first = yield* countAnswers(config, 50, "seed-1")
      const second = yield* countAnswers(config, 50, "seed-1")
      assert.deepStrictEqual(second.provider.calls, first.provider.calls)
    }))

  it.effect("never draws a target of weight 0", () =>
    Effect.gen(function*() {
      const { counts } = yield* countAnswers(loadbalance([leaf("zero", { weight: 0 }), leaf("a"), leaf("b")]), 2_000)
      assert.isUndefined(counts.get("zero"))
      assert.strictEqual((counts.get("a") ?? 0) + (counts.get("b") ?? 0), 2_000)
    }))

  it.effect("fails to compile with InvalidRequest naming the targets when every weight is 0", () =>
    Effect.gen(function*() {
      const config = loadbalance([leaf("a", { weight: 0 }), leaf("b", { weight: 0 })])
      const error = yield* Effect.flip(compile(config, scriptedProvider()))
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "config.targets")
      assert.include(error.message, "weight above 0")
    }))

  it.effect("fails to compile with InvalidRequest naming a negative weight", () =>
    Effect.gen(function*() {
      const config = { strategy: { mode: "loadbalance" as const }, targets: [leaf("a"), leaf("b", { weight: -1 })] }
      const error = yield* Effect.flip(compile(config, scriptedProvider()))
      assert.strictEqual(error.param, "config.targets[1].weight")
    }))

  it.effect("labels each answer with the path and provider of the target drawn", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const dispatch = yield* compile(loadbalance([leaf("a", { weight: 0 }), leaf("b")]), provider)
      const response = yield* dispatch(request())
      assert.strictEqual(optionIndexOf(response), "config.targets[1]")
      assert.strictEqual(response.headers["x-gateway-provider"], "fake")
    }))

  it.effect("skips targets whose circuit is open and draws among the others", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const config = loadbalance([leaf("a"), leaf("b"), leaf("c")])
      const dispatch = yield* compile(config, provider, [openCircuits(["a", "b"])])
      for (let i = 0; i < 200; i++) {
        const response = yield* dispatch(request())
        assert.strictEqual(answeredBy(response), "c")
        assert.strictEqual(optionIndexOf(response), "config.targets[2]")
      }
      assert.deepStrictEqual(new Set(provider.calls), new Set(["c"]))
    }).pipe(Random.withSeed("open")))

  it.effect("answers TargetsUnavailable (503) when every target's circuit is open", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const config = loadbalance([leaf("a"), leaf("b", { weight: 5 }), leaf("zero", { weight: 0 })])
      const dispatch = yield* compile(config, provider, [openCircuits(["a", "b"])])
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(error._tag, "TargetsUnavailable")
      assert.strictEqual(GatewayError.toHttp(error).status, 503)
      assert.deepStrictEqual(provider.calls, [])
    }))

  it.effect("returns any other failure of the drawn target as it is, labelled with its path", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("b", upstreamStatus(500))
      const dispatch = yield* compile(loadbalance([leaf("a", { weight: 0 }), leaf("b")]), provider)
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(GatewayError.upstreamStatusOf(error), 500)
      assert.strictEqual(optionIndexOf(error), "config.targets[1]")
      assert.strictEqual(GatewayError.toHttp(error).headers["x-gateway-provider"], "fake")
      assert.deepStrictEqual(provider.calls, ["b"])
    }))

  it.effect("treats a nested strategy whose targets are all open as open itself", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const config = loadbalance([
        { weight: 100, strategy: { mode: "fallback" }, targets: [leaf("a"), leaf("b")] },
        leaf("c")
      ])
      const dispatch = yield* compile(config, provider, [openCircuits(["a", "b"])])
      for (let i = 0; i < 20; i++) assert.strictEqual(answeredBy(yield* dispatch(request())), "c")
    }).pipe(Random.withSeed("nested")))
})
