import { model, type ProviderModels } from "../CatalogModel.ts"

/**
 * Anthropic's list prices as of 2025-11 (https://www.anthropic.com/pricing#api). `cachedInput`
 * is the cache-read price; cache writes (1.25x input for 5 minutes) are not in the catalog.
 * Answers name dated snapshots (`claude-sonnet-4-5-20250929`), which the lookup strips.
 */
export const anthropicModels: ProviderModels = {
  provider: "anthropic",
  asOf: "2025-11",
  source: "https://www.anthropic.com/pricing#api",
  models: [
    model("claude-opus-4-5", 200_000, 5, 25, 0.5),
    model("claude-sonnet-4-5", 200_000, 3, 15, 0.3),
    model("claude-haiku-4-5", 200_000, 1, 5, 0.1),
    model("claude-opus-4-1", 200_000, 15, 75, 1.5),
    model("claude-opus-4", 200_000, 15, 75, 1.5, ["claude-opus-4-0"]),
    model("claude-sonnet-4", 200_000, 3, 15, 0.3, ["claude-sonnet-4-0"]),
    model("claude-3-7-sonnet", 200_000, 3, 15, 0.3, ["claude-3-7-sonnet-latest"]),
    model("claude-3-5-haiku", 200_000, 0.8, 4, 0.08, ["claude-3-5-haiku-latest"]),
    model("claude-3-haiku", 200_000, 0.25, 1.25, 0.03)
  ]
}
