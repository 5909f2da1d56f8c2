import { ModelCatalog } from "@switchyard/providers"
import { describe, expect, it } from "vitest"

const providers = [
  "openai",
  "anthropic",
  "google",
  "vertex-ai",
  "bedrock",
  "azure-openai",
  "groq",
  "mistral-ai",
  "together-ai",
  "deepseek",
  "fireworks-ai",
  "openrouter",
  "x-ai",
  "cerebras",
  "perplexity-ai"
]

describe("ModelCatalog", () => {
  it("has models for every provider, each with a context length and prices", () => {
    expect(ModelCatalog.catalog.map((entry) => entry.provider)).toEqual(providers)
    for (const entry of ModelCatalog.catalog) {
      expect(entry.models.length, entry.provider).toBeGreaterThan(0)
      for (const model of entry.models) {
        expect(model.contextLength, model.id).toBeGreaterThan(0)
        expect(model.pricing.input, model.id).toBeGreaterThan(0)
        expect(model.pricing.output, model.id).toBeGreaterThanOrEqual(0)
        expect(model.pricing.cachedInput ?? 0, model.id).toBeLessThanOrEqual(model.pricing.input)
      }
    }
  })

  it("has no id or alias twice within a provider", () => {
    for (const entry of ModelCatalog.catalog) {
      const names = entry.models.flatMap((model) => [model.id, ...(model.aliases ?? [])].map((n) => n.toLowerCase()))
      expect(new Set(names).size, entry.provider).toBe(names.length)
    }
  })

  it("prices prompt and completion tokens per million", () => {
    expect(ModelCatalog.costOf("openai", "gpt-4o", { prompt_tokens: 1000, completion_tokens: 200 })).toBeCloseTo(
      0.0045,
      12
    )
  })

  it("prices cached prompt tokens at the cached-input price, flat or nested as OpenAI reports them", () => {
    const flat = { prompt_tokens: 1_000_000, completion_tokens: 0, cached_tokens: 400_000 }
    const nested = { prompt_tokens: 1_000_000, completion_tokens: 0, prompt_tokens_details: { cached_tokens: 400_000 } }
    // 600k uncached at $2.50 + 400k cached at $1.25
    expect(ModelCatalog.costOf("openai", "gpt-4o", flat)).toBeCloseTo(2, 12)
    expect(ModelCatalog.costOf("openai", "gpt-4o", nested)).toBeCloseTo(2, 12)
  })

  it("prices cached tokens at the input price where the provider has no cache price", () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, cached_tokens: 500_000 }
    expect(ModelCatalog.costOf("perplexity-ai", "sonar-pro", usage)).toBeCloseTo(18, 12)
  })

  it("finds dated snapshots, Vertex versions, Bedrock profiles and aliases under their model", () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 0 }
    expect(ModelCatalog.costOf("openai", "gpt-4o-mini-2024-07-18", usage)).toBeCloseTo(0.15, 12)
    expect(ModelCatalog.costOf("azure-openai", "gpt-4o-2024-11-20", usage)).toBeCloseTo(2.5, 12)
    expect(ModelCatalog.costOf("anthropic", "claude-sonnet-4-5-20250929", usage)).toBeCloseTo(3, 12)
    expect(ModelCatalog.costOf("vertex-ai", "claude-sonnet-4-5@20250929", usage)).toBeCloseTo(3, 12)
    expect(ModelCatalog.costOf("vertex-ai", "publishers/google/models/gemini-2.5-pro", usage)).toBeCloseTo(1.25, 12)
    expect(ModelCatalog.costOf("bedrock", "us.anthropic.claude-3-5-haiku-20241022-v1:0", usage)).toBeCloseTo(0.8, 12)
    expect(ModelCatalog.costOf("x-ai", "grok-4-0709", usage)).toBeCloseTo(3, 12)
    expect(ModelCatalog.costOf("together-ai", "meta-llama/llama-3.3-70b-instruct-turbo", usage)).toBeCloseTo(0.88, 12)
  })

  it("answers undefined for a model or provider it does not know", () => {
    const usage = { prompt_tokens: 10, completion_tokens: 10 }
    expect(ModelCatalog.costOf("openai", "gpt-9", usage)).toBeUndefined()
    expect(ModelCatalog.costOf("nowhere", "gpt-4o", usage)).toBeUndefined()
    expect(ModelCatalog.costOf("anthropic", "gpt-4o", usage)).toBeUndefined()
  })

  it("answers a name asked again as the first time, whatever was asked in between", () => {
    const asked: Array<readonly [string, string, string | undefined]> = [
      ["openai", "gpt-4o", "gpt-4o"],
      ["openai", "gpt-4o", "gpt-4o"],
      ["openai", "GPT-4o-2024-08-06", "gpt-4o"],
      ["anthropic", "gpt-4o", undefined],
      ["openai", "gpt-4o", "gpt-4o"],
      ["nowhere", "gpt-4o", undefined],
      ["nowhere", "gpt-4o", undefined],
      ["openai", "gpt-9", undefined],
      ["openai", "gpt-4o-mini", "gpt-4o-mini"],
      ["openai", "gpt-4o", "gpt-4o"]
    ]
    for (const [provider, model, id] of asked) expect(ModelCatalog.find(provider, model)?.id).toBe(id)
  })

  it("lists every model in OpenAI's list shape with context length and prices", () => {
    const body = ModelCatalog.modelsResponse()
    const total = ModelCatalog.catalog.reduce((sum, entry) => sum + entry.models.length, 0)
    expect(body.object).toBe("list")
    expect(body.data).toHaveLength(total)
    expect(body.data.find((model) => model.id === "gpt-4o" && model.owned_by === "openai")).toEqual({
      id: "gpt-4o",
      object: "model",
      created: 0,
      owned_by: "openai",
      context_length: 128_000,
      pricing: { input: 2.5, output: 10, cached_input: 1.25 }
    })
    expect(body.data.find((model) => model.id === "sonar")?.pricing.cached_input).toBeNull()
  })

  it("lists one provider's models when asked", () => {
    const body = ModelCatalog.list("deepseek")
    expect(body.data.map((model) => model.id)).toEqual(["deepseek-chat", "deepseek-reasoner"])
    expect(ModelCatalog.list("nowhere").data).toEqual([])
  })
})
