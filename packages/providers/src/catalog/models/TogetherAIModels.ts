import { model, type ProviderModels } from "../CatalogModel.ts"

/** Together AI's serverless prices as of 2025-11 (https://www.together.ai/pricing). */
export const togetherAIModels: ProviderModels = {
  provider: "together-ai",
  asOf: "2025-11",
  source: "https://www.together.ai/pricing",
  models: [
    model("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", 1_048_576, 0.27, 0.85),
    model("meta-llama/Llama-4-Scout-17B-16E-Instruct", 1_048_576, 0.18, 0.59),
    model("meta-llama/Llama-3.3-70B-Instruct-Turbo", 131_072, 0.88, 0.88),
    model("meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo", 130_815, 3.5, 3.5),
    model("meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", 131_072, 0.18, 0.18),
    model("deepseek-ai/DeepSeek-V3", 131_072, 1.25, 1.25),
    model("deepseek-ai/DeepSeek-R1", 163_840, 3, 7),
    model("openai/gpt-oss-120b", 131_072, 0.15, 0.6),
    model("Qwen/Qwen2.5-72B-Instruct-Turbo", 32_768, 1.2, 1.2),
    model("mistralai/Mixtral-8x7B-Instruct-v0.1", 32_768, 0.6, 0.6)
  ]
}
