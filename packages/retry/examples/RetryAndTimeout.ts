import { ConfigCompiler, type Dispatch, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Resilience } from "@switchyard/retry"
import { Effect, Layer } from "effect"

// retry and the request timeout around each leaf's own upstream calls, over the app's provider adapters
export const CompilerLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      Resilience.layer,
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer(adapters)
    ]),
    Layer.provide(Stage.Stages.layer)
  )
const config = {
  provider: "openai",
  api_key: "sk-123",
  retry: { attempts: 3, on_status_codes: [429, 503] },
  request_timeout: 30_000
} as const
// at most 4 calls of at most 30 s each; the answer carries x-gateway-retry-attempt-count
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai-retried", Effect.succeed(config))).pipe(
    Effect.flatMap((dispatch) => dispatch(request))
  )
