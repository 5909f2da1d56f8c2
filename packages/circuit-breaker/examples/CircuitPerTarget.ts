import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import { ConfigCompiler, type Dispatch, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Effect, Layer } from "effect"

// a circuit per target around each leaf's upstream calls, over the app's provider adapters; circuits in memory
export const CompilerLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      CircuitBreakerMiddleware.stage,
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer(adapters)
    ]),
    Layer.provide([Stage.Stages.layer, CircuitBreakerMiddleware.layerMemory]) // shared: RedisCircuitStore.layer({ url })
  )
const config = {
  provider: "openai",
  api_key: "sk-123",
  cb_config: { failure_threshold: 3, cooldown_interval: 60_000 }
} as const
// after 3 failures in a row, calls fail at once with TargetsUnavailable (503) for 60 s; then one probe goes through
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai-guarded", Effect.succeed(config))).pipe(
    Effect.flatMap((dispatch) => dispatch(request))
  )
