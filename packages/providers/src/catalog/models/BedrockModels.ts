import { model, type ProviderModels } from "../CatalogModel.ts"

/**
 * Amazon Bedrock on-demand prices in us-east-1 as of 2025-11 (https://aws.amazon.com/bedrock/pricing/).
 * Cross-region inference profiles (`us.`, `eu.`, `apac.`, `global.` before the id) are looked up
 * under the model's own id.
 */
export const bedrockModels: ProviderModels = {
  provider: "bedrock",
  asOf: "2025-11",
  source: "https://aws.amazon.com/bedrock/pricing/",
  models: [
    model("anthropic.claude-sonnet-4-5-20250929-v1:0", 200_000, 3, 15, 0.3),
    model("anthropic.claude-haiku-4-5-20251001-v1:0", 200_000, 1, 5, 0.1),
    model("anthropic.claude-opus-4-1-20250805-v1:0", 200_000, 15, 75, 1.5),
    model("anthropic.claude-sonnet-4-20250514-v1:0", 200_000, 3, 15, 0.3),
    model("anthropic.claude-3-7-sonnet-20250219-v1:0", 200_000, 3, 15, 0.3),
    model("anthropic.claude-3-5-haiku-20241022-v1:0", 200_000, 0.8, 4, 0.08),
    model("anthropic.claude-3-haiku-20240307-v1:0", 200_000, 0.25, 1.25),
    model("amazon.nova-premier-v1:0", 1_000_000, 2.5, 12.5),
    model("amazon.nova-pro-v1:0", 300_000, 0.8, 3.2, 0.2),
    model("amazon.nova-lite-v1:0", 300_000, 0.06, 0.24, 0.015),
    model("amazon.nova-micro-v1:0", 128_000, 0.035, 0.14, 0.00875),
    model("meta.llama4-maverick-17b-instruct-v1:0", 1_000_000, 0.24, 0.97),
    model("meta.llama3-3-70b-instruct-v1:0", 128_000, 0.72, 0.72),
    model("meta.llama3-1-8b-instruct-v1:0", 128_000, 0.22, 0.22),
    model("mistral.mistral-large-2407-v1:0", 128_000, 2, 6),
    model("deepseek.r1-v1:0", 128_000, 1.35, 5.4),
    model("amazon.titan-embed-text-v2:0", 8_192, 0.02, 0)
  ]
}
