/**
 * The model catalog: per provider, its main models with context length and list prices (data
 * under `models/`, one file per provider, each saying when its prices were read). It prices a
 * call's usage (`costOf`, for budgets) and answers `GET /v1/models` (`modelsResponse`).
 *
 * @example
 * ```ts
 * import { ModelCatalog } from "@switchyard/providers"
 *
 * ModelCatalog.costOf("openai", "gpt-4o-2024-08-06", { prompt_tokens: 1000, completion_tokens: 200 })
 * // 0.0045 (USD)
 * ModelCatalog.modelsResponse().data[0] // { id: "gpt-5", object: "model", owned_by: "openai", … }
 * ```
 */
import type { CatalogModel, ProviderModels } from "./CatalogModel.ts"
import { anthropicModels } from "./models/AnthropicModels.ts"
import { azureOpenAIModels } from "./models/AzureOpenAIModels.ts"
import { bedrockModels } from "./models/BedrockModels.ts"
import { cerebrasModels } from "./models/CerebrasModels.ts"
import { deepSeekModels } from "./models/DeepSeekModels.ts"
import { fireworksAIModels } from "./models/FireworksAIModels.ts"
import { googleModels } from "./models/GoogleModels.ts"
import { groqModels } from "./models/GroqModels.ts"
import { mistralAIModels } from "./models/MistralAIModels.ts"
import { openAIModels } from "./models/OpenAIModels.ts"
import { openRouterModels } from "./models/OpenRouterModels.ts"
import { perplexityAIModels } from "./models/PerplexityAIModels.ts"
import { togetherAIModels } from "./models/TogetherAIModels.ts"
import { vertexAIModels } from "./models/VertexAIModels.ts"
import { xAIModels } from "./models/XAIModels.ts"

export type { CatalogModel, Pricing, ProviderModels } from "./CatalogModel.ts"

/** Every provider's models, in the order `GET /v1/models` lists them. */
export const catalog: ReadonlyArray<ProviderModels> = [
  openAIModels,
  anthropicModels,
  googleModels,
  vertexAIModels,
  bedrockModels,
  azureOpenAIModels,
  groqModels,
  mistralAIModels,
  togetherAIModels,
  deepSeekModels,
  fireworksAIModels,
  openRouterModels,
  xAIModels,
  cerebrasModels,
  perplexityAIModels
]

/** Token counts of one call, as OpenAI's `usage` reports them. */
export interface Usage {
  /** All prompt tokens, cached ones included. */
  readonly prompt_tokens: number
  readonly completion_tokens: number
  /** Prompt tokens read from the provider's cache (a flat count)… */
  readonly cached_tokens?: number | undefined
  /** …or as OpenAI nests it. */
  readonly prompt_tokens_details?: { readonly cached_tokens?: number | undefined } | null | undefined
}

/** Names are matched without regard to case: lower-case name → model, per provider. */
const index: ReadonlyMap<string, ReadonlyMap<string, CatalogModel>> = new Map(
  catalog.map((entry) => [
    entry.provider,
    new Map(
      entry.models.flatMap((model) =>
        [model.id, ...(model.aliases ?? [])].map((name) => [name.toLowerCase(), model] as const)
      )
    )
  ])
)

/** Cross-region inference profiles on Bedrock (`us.anthropic.claude-…`). */
const regionPrefix = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\./
/** Pinned snapshots: `-2024-08-06` (OpenAI, Azure), `-20250929` (Anthropic), `@20250929` (Vertex). */
const snapshotSuffix = /(?:-\d{4}-\d{2}-\d{2}|-\d{8}|@\d{8})$/
/** Vertex resource names: `publishers/google/models/gemini-2.5-pro`. */
const resourcePrefix = /^(?:projects\/.+\/)?publishers\/[^/]+\/models\//

/**
 * The last name looked up and what it found: a gateway's requests mostly name the same model, and
 * comparing two names costs less than lowering, stripping and looking one up (every request's
 * cost goes through here, ~2,000 instructions a chat request before).
 */
const last = { provider: "", model: "", found: undefined as CatalogModel | undefined }

/** The catalog entry for a provider's model, by id, alias, or a snapshot or profile of it. */
export const find = (provider: string, model: string): CatalogModel | undefined => {
  if (provider === last.provider && model === last.model) return last.found
  const models = index.get(provider)
  const name = model.toLowerCase()
  const bare = name.replace(resourcePrefix, "").replace(regionPrefix, "")
  const found = models === undefined
    ? undefined
    : models.get(name) ?? models.get(bare) ?? models.get(bare.replace(snapshotSuffix, ""))
  last.provider = provider
  last.model = model
  last.found = found
  return found
}

/**
 * What a call cost in USD at list prices: uncached prompt tokens at the input price, cached ones
 * at the cached-input price (the input price where the provider has none), completion tokens at
 * the output price. Undefined for a model the catalog does not know.
 */
export const costOf = (provider: string, model: string, usage: Usage): number | undefined => {
  const entry = find(provider, model)
  if (entry === undefined) return undefined
  const { cachedInput, input, output } = entry.pricing
  const prompt = Math.max(usage.prompt_tokens, 0)
  const cachedCount = usage.cached_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? 0
  const cached = Math.min(Math.max(cachedCount, 0), prompt)
  const completion = Math.max(usage.completion_tokens, 0)
  return ((prompt - cached) * input + cached * (cachedInput ?? input) + completion * output) / 1_000_000
}

/** One model as `GET /v1/models` lists it: OpenAI's shape plus context length and prices. */
export interface ListedModel {
  readonly id: string
  readonly object: "model"
  readonly created: number
  readonly owned_by: string
  readonly context_length: number
  /** USD per million tokens; `cached_input` is null where the provider has no cache price. */
  readonly pricing: { readonly input: number; readonly output: number; readonly cached_input: number | null }
}

export interface ModelList {
  readonly object: "list"
  readonly data: ReadonlyArray<ListedModel>
}

const listed = (provider: string, model: CatalogModel): ListedModel => ({
  id: model.id,
  object: "model",
  created: 0,
  owned_by: provider,
  context_length: model.contextLength,
  pricing: { input: model.pricing.input, output: model.pricing.output, cached_input: model.pricing.cachedInput ?? null }
})

const everyModel: ModelList = {
  object: "list",
  data: catalog.flatMap((entry) => entry.models.map((model) => listed(entry.provider, model)))
}

/** The catalog in OpenAI's list shape; only `provider`'s models when one is given. */
export const list = (provider?: string): ModelList =>
  provider === undefined
    ? everyModel
    : { object: "list", data: everyModel.data.filter((model) => model.owned_by === provider) }

/**
 * The body of `GET /v1/models` (optionally `?provider=…`): every catalog model in OpenAI's list
 * shape. The server answers it as JSON with status 200.
 */
export const modelsResponse = (provider?: string): ModelList => list(provider)
