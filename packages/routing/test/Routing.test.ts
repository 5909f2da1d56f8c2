import { assert, describe, it } from "@effect/vitest"
import { ConfigCompiler, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Routing } from "@switchyard/routing"
import { Effect, Layer } from "effect"
import { answeredBy, leaf, request, scriptedProvider } from "./support/Fakes.ts"

describe("Routing", () => {
  it("has a strategy for every mode of the config object", () => {
    assert.deepStrictEqual(Object.keys(Routing.strategies).sort(), ["conditional", "fallback", "loadbalance", "single"])
  })

  it.effect("provided to ConfigCompiler.layer, lets it compile every strategy", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([Routing.layer, Stage.Stages.layer]),
        Layer.provide(ProviderRegistry.ProviderRegistry.layer([provider.adapter]))
      )
      const config = {
        strategy: { mode: "fallback" as const },
        targets: [{ strategy: { mode: "loadbalance" as const }, targets: [leaf("a"), leaf("b")] }]
      }
      const response = yield* ConfigCompiler.ConfigCompiler.use((service) =>
        Effect.flatMap(service.dispatch("key", Effect.succeed(config)), (dispatch) => dispatch(request()))
      ).pipe(Effect.provide(compiler))
      assert.include(["a", "b"], answeredBy(response))
    }))

  it.effect("is what Strategy.Strategies holds under Routing.layer", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Strategy.Strategies).table, Routing.strategies)
    }).pipe(Effect.provide(Routing.layer)))
})
