import { model, type ProviderModels } from "../CatalogModel.ts"

/** Mistral AI's API prices as of 2025-11 (https://mistral.ai/pricing#api-pricing). */
export const mistralAIModels: ProviderModels = {
  provider: "mistral-ai",
  asOf: "2025-11",
  source: "https://mistral.ai/pricing#api-pricing",
  models: [
    model("mistral-large-latest", 131_072, 2, 6, undefined, ["mistral-large-2411"]),
    model("mistral-medium-latest", 131_072, 0.4, 2, undefined, ["mistral-medium-2508", "mistral-medium-2505"]),
    model("mistral-small-latest", 131_072, 0.1, 0.3, undefined, ["mistral-small-2506"]),
    model("magistral-medium-latest", 131_072, 2, 5),
    model("magistral-small-latest", 131_072, 0.5, 1.5),
    model("codestral-latest", 256_000, 0.3, 0.9, undefined, ["codestral-2508"]),
    model("pixtral-large-latest", 131_072, 2, 6),
    model("ministral-8b-latest", 131_072, 0.1, 0.1),
    model("ministral-3b-latest", 131_072, 0.04, 0.04),
    model("open-mistral-nemo", 131_072, 0.15, 0.15),
    model("mistral-embed", 8_192, 0.1, 0)
  ]
}
