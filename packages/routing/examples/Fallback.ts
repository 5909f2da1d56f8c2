import { ConfigCompiler, type Dispatch, ProviderRegistry, Stage } from "@switchyard/core"
import { Routing } from "@switchyard/routing"
import { Effect, Layer } from "effect"

// single, loadbalance, fallback and conditional, over the app's provider adapters
export const CompilerLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([Routing.layer, ProviderRegistry.ProviderRegistry.layer(adapters)]),
    Layer.provide(Stage.Stages.layer) // the stages (retry, cache, …) add themselves to this set
  )
const config = {
  strategy: { mode: "fallback", on_status_codes: [429, 503] },
  targets: [{ provider: "openai", api_key: "sk-123" }, { provider: "anthropic", api_key: "sk-ant-123" }]
} as const
// openai answers 429 or 503: anthropic answers instead, with x-gateway-last-used-option-index: config.targets[1]
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai-then-anthropic", Effect.succeed(config)))
    .pipe(Effect.flatMap((dispatch) => dispatch(request)))
