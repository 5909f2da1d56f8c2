import { ConfigCompiler, GatewayResponse, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Database } from "@switchyard/storage"
import { RatePolicies, UsageCounters, UsageLimits, UsagePolicies } from "@switchyard/usage-limits"
import { Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"
import { request } from "./test/support/Requests.ts"

const adapter: ProviderRegistry.ProviderAdapter = {
  names: ["openai"],
  make: () =>
    Effect.succeed(() =>
      Effect.succeed(GatewayResponse.json({ usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }))
    )
}
const live = ConfigCompiler.ConfigCompiler.layer().pipe(
  Layer.provide([
    UsageLimits.stage(),
    Strategy.Strategies.layerSingle,
    ProviderRegistry.ProviderRegistry.layer([adapter])
  ]),
  Layer.provide(Stage.Stages.layer),
  Layer.provideMerge(
    Layer.mergeAll(
      UsagePolicies.UsagePolicies.layer,
      RatePolicies.RatePolicies.layer,
      UsageCounters.UsageCounters.layerLocal,
      RateLimiter.layerStoreMemory
    )
  ),
  Layer.provideMerge(Database.layerSqlite(":memory:"))
)
const mode = process.argv[2] ?? "none"
const withPolicies = mode !== "none"
const program = Effect.gen(function*() {
  const dispatch = yield* ConfigCompiler.ConfigCompiler.use((c) =>
    c.dispatch("k", Effect.succeed({ provider: "openai" }))
  )
  if (withPolicies) {
    const every = { conditions: [{ key: "workspace_id", value: "*" }], group_by: [{ key: "api_key" }] }
    if (mode !== "rate") {
      yield* UsagePolicies.UsagePolicies.use((p) => p.create("ws-1", { ...every, type: "tokens", credit_limit: 1e15 }))
    }
    if (mode !== "usage") {
      yield* RatePolicies.RatePolicies.use((p) =>
        p.create("ws-1", { ...every, type: "requests", unit: "rpm", value: 1e9 })
      )
    }
  }
  const one = request()
  for (let round = 0; round < 6; round++) {
    const n = 20000
    const start = performance.now()
    for (let i = 0; i < n; i++) yield* dispatch(one)
    if (round >= 3) console.log(`${mode}: ${(((performance.now() - start) * 1000) / n).toFixed(2)} µs/request`)
  }
})
await Effect.runPromise(program.pipe(Effect.provide(live)))
