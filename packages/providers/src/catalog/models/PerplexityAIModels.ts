import { model, type ProviderModels } from "../CatalogModel.ts"

/**
 * Perplexity's token prices as of 2025-11 (https://docs.perplexity.ai/getting-started/pricing);
 * the per-request search fees and deep research's citation and search charges are not tokens,
 * so the catalog leaves them out.
 */
export const perplexityAIModels: ProviderModels = {
  provider: "perplexity-ai",
  asOf: "2025-11",
  source: "https://docs.perplexity.ai/getting-started/pricing",
  models: [
    model("sonar", 128_000, 1, 1),
    model("sonar-pro", 200_000, 3, 15),
    model("sonar-reasoning", 128_000, 1, 5),
    model("sonar-reasoning-pro", 128_000, 2, 8),
    model("sonar-deep-research", 128_000, 2, 8)
  ]
}
