import { model, type ProviderModels } from "../CatalogModel.ts"

/** xAI's API prices as of 2025-11 (https://docs.x.ai/docs/models), for prompts up to 128k tokens. */
export const xAIModels: ProviderModels = {
  provider: "x-ai",
  asOf: "2025-11",
  source: "https://docs.x.ai/docs/models",
  models: [
    model("grok-4", 256_000, 3, 15, 0.75, ["grok-4-0709", "grok-4-latest"]),
    model("grok-4-fast-reasoning", 2_000_000, 0.2, 0.5, 0.05),
    model("grok-4-fast-non-reasoning", 2_000_000, 0.2, 0.5, 0.05),
    model("grok-code-fast-1", 256_000, 0.2, 1.5, 0.02),
    model("grok-3", 131_072, 3, 15, 0.75, ["grok-3-latest"]),
    model("grok-3-mini", 131_072, 0.3, 0.5, 0.075, ["grok-3-mini-latest"])
  ]
}
