import { ConfigCompiler, type Dispatch, type GatewayError, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Database } from "@switchyard/storage"
import { UsageLimits, UsagePolicies } from "@switchyard/usage-limits"
import { Effect, Layer } from "effect"

// usage limits around each leaf's upstream call; policies and counters in the gateway's SQLite database
export const GatewayLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      UsageLimits.stage(),
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer(adapters)
    ]),
    Layer.provide(Stage.Stages.layer),
    Layer.provideMerge(UsageLimits.layerSql), // counters shared by replicas: RedisUsageCounters.layerStores({ url })
    Layer.provideMerge(Database.layerSqlite(":memory:"))
  )
// 50 tokens per API key in the workspace: at 20 tokens a call, the third call is the last one admitted
export const budget: Effect.Effect<
  UsagePolicies.UsagePolicy,
  GatewayError.InternalError,
  UsagePolicies.UsagePolicies
> = UsagePolicies.UsagePolicies.use((policies) =>
  policies.create("ws-1", {
    conditions: [{ key: "workspace_id", value: "*" }],
    group_by: [{ key: "api_key" }],
    type: "tokens",
    credit_limit: 50
  })
)
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai", Effect.succeed({ provider: "openai" })))
    .pipe(Effect.flatMap((dispatch) => dispatch(request)))
