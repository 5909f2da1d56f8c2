import { type CatalogModel, model, type ProviderModels } from "../CatalogModel.ts"

/**
 * Gemini API paid-tier prices as of 2025-11 (https://ai.google.dev/gemini-api/docs/pricing), for
 * prompts up to 200k tokens where the price has tiers (longer prompts cost more); text input.
 */
export const geminiModels: ReadonlyArray<CatalogModel> = [
  model("gemini-3-pro-preview", 1_048_576, 2, 12, 0.2),
  model("gemini-2.5-pro", 1_048_576, 1.25, 10, 0.125),
  model("gemini-2.5-flash", 1_048_576, 0.3, 2.5, 0.03),
  model("gemini-2.5-flash-lite", 1_048_576, 0.1, 0.4, 0.01),
  model("gemini-2.0-flash", 1_048_576, 0.1, 0.4, 0.025, ["gemini-2.0-flash-001"]),
  model("gemini-2.0-flash-lite", 1_048_576, 0.075, 0.3, undefined, ["gemini-2.0-flash-lite-001"]),
  model("gemini-embedding-001", 2_048, 0.15, 0)
]

export const googleModels: ProviderModels = {
  provider: "google",
  asOf: "2025-11",
  source: "https://ai.google.dev/gemini-api/docs/pricing",
  models: geminiModels
}
