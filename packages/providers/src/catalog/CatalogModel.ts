/**
 * One model of the catalog, as data: its context length and its list prices in USD per million
 * tokens. A provider's file under `models/` lists its main current models.
 */

export interface Pricing {
  /** USD per million prompt tokens (not served from a cache). */
  readonly input: number
  /** USD per million completion tokens (reasoning tokens included, as providers bill them). */
  readonly output: number
  /** USD per million prompt tokens read from the provider's prompt cache, where it prices them. */
  readonly cachedInput?: number | undefined
}

export interface CatalogModel {
  /** The id a request names the model by. */
  readonly id: string
  /** Other names the provider answers or accepts for the same model (pinned snapshots, `-latest`). */
  readonly aliases?: ReadonlyArray<string> | undefined
  /** The most tokens (prompt and completion together) one request can use. */
  readonly contextLength: number
  readonly pricing: Pricing
  /** The most completion tokens one request may ask for (`max_tokens`), where the provider documents it. */
  readonly maxOutputTokens?: number | undefined
  /** A reasoning model: takes `reasoning_effort` and `max_completion_tokens`, refuses `max_tokens`. */
  readonly reasoning?: boolean | undefined
}

export interface ProviderModels {
  /** The provider's short name, as a config names it. */
  readonly provider: string
  /** When the prices were read from `source`. */
  readonly asOf: string
  /** The provider's public price page. */
  readonly source: string
  readonly models: ReadonlyArray<CatalogModel>
}

/** A model entry in one line: `model("gpt-4o", 128_000, 2.5, 10, 1.25)`. */
export const model = (
  id: string,
  contextLength: number,
  input: number,
  output: number,
  cachedInput?: number,
  aliases?: ReadonlyArray<string>
): CatalogModel => ({
  id,
  contextLength,
  pricing: cachedInput === undefined ? { input, output } : { input, output, cachedInput },
  ...(aliases === undefined ? {} : { aliases })
})

/** An entry with its documented output limit, and whether it reasons: `limits(model(…), 16_384)`. */
export const limits = (entry: CatalogModel, maxOutputTokens: number, reasoning = false): CatalogModel => ({
  ...entry,
  maxOutputTokens,
  ...(reasoning ? { reasoning } : {})
})
