import { model, type ProviderModels } from "../CatalogModel.ts"

/** Groq's on-demand prices as of 2025-11 (https://groq.com/pricing). */
export const groqModels: ProviderModels = {
  provider: "groq",
  asOf: "2025-11",
  source: "https://groq.com/pricing",
  models: [
    model("openai/gpt-oss-120b", 131_072, 0.15, 0.75),
    model("openai/gpt-oss-20b", 131_072, 0.1, 0.5),
    model("moonshotai/kimi-k2-instruct-0905", 262_144, 1, 3),
    model("meta-llama/llama-4-maverick-17b-128e-instruct", 131_072, 0.2, 0.6),
    model("meta-llama/llama-4-scout-17b-16e-instruct", 131_072, 0.11, 0.34),
    model("llama-3.3-70b-versatile", 131_072, 0.59, 0.79),
    model("llama-3.1-8b-instant", 131_072, 0.05, 0.08),
    model("qwen/qwen3-32b", 131_072, 0.29, 0.59)
  ]
}
