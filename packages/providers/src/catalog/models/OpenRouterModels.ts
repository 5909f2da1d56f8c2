import { model, type ProviderModels } from "../CatalogModel.ts"

/**
 * OpenRouter prices as of 2025-11 (https://openrouter.ai/models): its first-party models at the
 * vendor's own list price, which OpenRouter passes through without a markup on tokens.
 */
export const openRouterModels: ProviderModels = {
  provider: "openrouter",
  asOf: "2025-11",
  source: "https://openrouter.ai/models",
  models: [
    model("openai/gpt-5", 400_000, 1.25, 10, 0.125),
    model("openai/gpt-5-mini", 400_000, 0.25, 2, 0.025),
    model("openai/gpt-4.1", 1_047_576, 2, 8, 0.5),
    model("openai/gpt-4o", 128_000, 2.5, 10, 1.25),
    model("openai/gpt-4o-mini", 128_000, 0.15, 0.6, 0.075),
    model("anthropic/claude-sonnet-4.5", 1_000_000, 3, 15, 0.3),
    model("anthropic/claude-opus-4.1", 200_000, 15, 75, 1.5),
    model("anthropic/claude-haiku-4.5", 200_000, 1, 5, 0.1),
    model("google/gemini-2.5-pro", 1_048_576, 1.25, 10, 0.125),
    model("google/gemini-2.5-flash", 1_048_576, 0.3, 2.5, 0.03),
    model("x-ai/grok-4", 256_000, 3, 15, 0.75)
  ]
}
