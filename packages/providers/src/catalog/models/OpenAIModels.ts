import { limits, model, type ProviderModels } from "../CatalogModel.ts"

/**
 * OpenAI's standard-tier list prices as of 2025-11 (https://platform.openai.com/docs/pricing); output
 * limits and reasoning models from each model's page (platform.openai.com/docs/models).
 */
export const openAIModels: ProviderModels = {
  provider: "openai",
  asOf: "2025-11",
  source: "https://platform.openai.com/docs/pricing",
  models: [
    limits(model("gpt-5", 400_000, 1.25, 10, 0.125), 128_000, true),
    limits(model("gpt-5-mini", 400_000, 0.25, 2, 0.025), 128_000, true),
    limits(model("gpt-5-nano", 400_000, 0.05, 0.4, 0.005), 128_000, true),
    limits(model("gpt-4.1", 1_047_576, 2, 8, 0.5), 32_768),
    limits(model("gpt-4.1-mini", 1_047_576, 0.4, 1.6, 0.1), 32_768),
    limits(model("gpt-4.1-nano", 1_047_576, 0.1, 0.4, 0.025), 32_768),
    limits(model("gpt-4o", 128_000, 2.5, 10, 1.25), 16_384),
    limits(model("gpt-4o-mini", 128_000, 0.15, 0.6, 0.075), 16_384),
    limits(model("o3", 200_000, 2, 8, 0.5), 100_000, true),
    limits(model("o3-pro", 200_000, 20, 80), 100_000, true),
    limits(model("o4-mini", 200_000, 1.1, 4.4, 0.275), 100_000, true),
    limits(model("o3-mini", 200_000, 1.1, 4.4, 0.55), 100_000, true),
    limits(model("o1", 200_000, 15, 60, 7.5), 100_000, true),
    limits(model("gpt-4-turbo", 128_000, 10, 30), 4_096),
    limits(model("gpt-3.5-turbo", 16_385, 0.5, 1.5), 4_096),
    model("text-embedding-3-small", 8_191, 0.02, 0),
    model("text-embedding-3-large", 8_191, 0.13, 0),
    model("text-embedding-ada-002", 8_191, 0.1, 0)
  ]
}
