import { model, type ProviderModels } from "../CatalogModel.ts"

/**
 * DeepSeek's prices as of 2025-11 (https://api-docs.deepseek.com/quick_start/pricing): both ids
 * run DeepSeek-V3.2-Exp; `cachedInput` is the cache-hit price, `input` the cache-miss price.
 */
export const deepSeekModels: ProviderModels = {
  provider: "deepseek",
  asOf: "2025-11",
  source: "https://api-docs.deepseek.com/quick_start/pricing",
  models: [
    model("deepseek-chat", 131_072, 0.28, 0.42, 0.028),
    model("deepseek-reasoner", 131_072, 0.28, 0.42, 0.028)
  ]
}
