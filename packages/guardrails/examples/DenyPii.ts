import { ConfigCompiler, type Dispatch, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Feedback, Guardrails } from "@switchyard/guardrails"
import { Effect, Layer } from "effect"

// hooks and guardrails around each leaf, over the app's provider adapters; feedback kept in memory
export const CompilerLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  ConfigCompiler.ConfigCompiler.layer().pipe(
    Layer.provide([
      Guardrails.stage(Effect.succeed({})), // options: { checks?, resolve? (stored guardrails) }
      Strategy.Strategies.layerSingle,
      ProviderRegistry.ProviderRegistry.layer(adapters)
    ]),
    Layer.provide([Stage.Stages.layer, Feedback.FeedbackStore.layerMemory])
  )
const config = {
  provider: "openai",
  api_key: "sk-123",
  input_guardrails: [{ "default.piiDetection": { categories: ["email"] }, deny: true }]
} as const
// a message holding an e-mail address fails with HookDenied (446) and never reaches openai
export const ask: Dispatch.Dispatch<ConfigCompiler.ConfigCompiler> = (request) =>
  ConfigCompiler.ConfigCompiler.use((compiler) => compiler.dispatch("openai-no-pii", Effect.succeed(config))).pipe(
    Effect.flatMap((dispatch) => dispatch(request))
  )
