import { model, type ProviderModels } from "../CatalogModel.ts"

/** Fireworks AI's serverless prices as of 2025-11 (https://fireworks.ai/pricing#serverless-pricing). */
export const fireworksAIModels: ProviderModels = {
  provider: "fireworks-ai",
  asOf: "2025-11",
  source: "https://fireworks.ai/pricing#serverless-pricing",
  models: [
    model("accounts/fireworks/models/gpt-oss-120b", 131_072, 0.15, 0.6),
    model("accounts/fireworks/models/gpt-oss-20b", 131_072, 0.07, 0.3),
    model("accounts/fireworks/models/kimi-k2-instruct", 131_072, 0.6, 2.5),
    model("accounts/fireworks/models/deepseek-v3", 131_072, 0.9, 0.9),
    model("accounts/fireworks/models/deepseek-r1", 163_840, 3, 8),
    model("accounts/fireworks/models/qwen3-235b-a22b", 131_072, 0.22, 0.88),
    model("accounts/fireworks/models/llama4-maverick-instruct-basic", 1_048_576, 0.22, 0.88),
    model("accounts/fireworks/models/llama4-scout-instruct-basic", 1_048_576, 0.15, 0.6),
    model("accounts/fireworks/models/llama-v3p3-70b-instruct", 131_072, 0.9, 0.9),
    model("accounts/fireworks/models/llama-v3p1-405b-instruct", 131_072, 3, 3),
    model("accounts/fireworks/models/llama-v3p1-8b-instruct", 131_072, 0.2, 0.2)
  ]
}
