import { model, type ProviderModels } from "../CatalogModel.ts"
import { geminiModels } from "./GoogleModels.ts"

/**
 * Vertex AI list prices as of 2025-11 (https://cloud.google.com/vertex-ai/generative-ai/pricing):
 * Gemini as on the Gemini API; Claude (publisher `anthropic`, ids `claude-…@date`) at Anthropic's
 * prices on the global endpoint (regional endpoints cost 10% more for the 4.5 models).
 */
export const vertexAIModels: ProviderModels = {
  provider: "vertex-ai",
  asOf: "2025-11",
  source: "https://cloud.google.com/vertex-ai/generative-ai/pricing",
  models: [
    ...geminiModels,
    model("claude-opus-4-5", 200_000, 5, 25, 0.5),
    model("claude-sonnet-4-5", 200_000, 3, 15, 0.3),
    model("claude-haiku-4-5", 200_000, 1, 5, 0.1),
    model("claude-opus-4-1", 200_000, 15, 75, 1.5),
    model("claude-sonnet-4", 200_000, 3, 15, 0.3),
    model("claude-3-7-sonnet", 200_000, 3, 15, 0.3),
    model("claude-3-5-haiku", 200_000, 0.8, 4, 0.08)
  ]
}
