import { model, type ProviderModels } from "../CatalogModel.ts"

/** Cerebras' pay-as-you-go prices as of 2025-11 (https://www.cerebras.ai/pricing). */
export const cerebrasModels: ProviderModels = {
  provider: "cerebras",
  asOf: "2025-11",
  source: "https://www.cerebras.ai/pricing",
  models: [
    model("gpt-oss-120b", 131_072, 0.25, 0.69),
    model("qwen-3-235b-a22b-instruct-2507", 131_072, 0.6, 1.2),
    model("qwen-3-32b", 131_072, 0.4, 0.8),
    model("llama-3.3-70b", 131_072, 0.85, 1.2),
    model("llama-4-scout-17b-16e-instruct", 131_072, 0.65, 0.85),
    model("llama3.1-8b", 32_768, 0.1, 0.1)
  ]
}
