import { assert, describe, it } from "@effect/vitest"
import { GatewayError, GatewayResponse, type ProviderRegistry } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { ask, budget, GatewayLive } from "../examples/TokenBudget.ts"
import { request } from "./support/Requests.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("TokenBudget: at 20 tokens a call a budget of 50 admits three calls, then 412 naming the policy", () => {
    let calls = 0
    const adapter: ProviderRegistry.ProviderAdapter = {
      names: ["openai"],
      make: () =>
        Effect.succeed(() =>
          Effect.sync(() => {
            calls += 1
            return GatewayResponse.json({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })
          })
        )
    }
    return Effect.gen(function*() {
      const policy = yield* budget
      for (let call = 0; call < 3; call++) assert.strictEqual((yield* ask(request())).status, 200)
      const refused = yield* Effect.flip(ask(request()))
      assert.strictEqual(GatewayError.toHttp(refused).status, 412)
      assert.include(refused.message, policy.id)
      assert.strictEqual(calls, 3)
    }).pipe(Effect.provide(GatewayLive([adapter])))
  })
})
