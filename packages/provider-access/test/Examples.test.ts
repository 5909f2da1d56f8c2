import { assert, describe, it } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import { GatewayResponse, type ProviderRegistry, type ProviderTarget } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"
import { call, layer } from "../examples/StoredIntegration.ts"

/** An OpenAI stand-in recording the targets it was built for. */
const recordingAdapter = () => {
  const built: Array<ProviderTarget.ProviderTarget> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: (target) =>
      Effect.sync(() => {
        built.push(target)
        return () => Effect.succeed(GatewayResponse.json({ ok: true }))
      })
  }
  return { adapter, built }
}

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("StoredIntegration: @slug reaches the provider with the stored credentials", () => {
    const openai = recordingAdapter()
    const storage = Layer.merge(TestDatabase.layerSqlite, ServerSecret.ServerSecret.layerSecret("example secret"))
    return Effect.gen(function*() {
      const response = yield* call
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers["x-gateway-provider"], "@team-openai")
      assert.strictEqual(openai.built[0]?.provider, "openai")
      assert.strictEqual(openai.built[0]?.api_key, "sk-123")
    }).pipe(Effect.provide(layer([openai.adapter]).pipe(Layer.provide(storage))))
  })
})
