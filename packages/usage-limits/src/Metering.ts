/**
 * What a call uses, in tokens and in US dollars: an upper bound before the call (what is
 * reserved) and the real figure after it (what is settled).
 *
 * The bound must never be below the real usage, or concurrent requests could overshoot a limit.
 * Without a tokenizer per model, prompt tokens are bounded by the UTF-8 bytes of the request's
 * JSON: byte-level BPE tokenizers (OpenAI, Llama, Mistral…) never make a token of less than one
 * byte, and the JSON punctuation around each message outweighs the few tokens of framing a
 * provider adds. Parts whose cost is not their text (images, audio, files) and tool definitions
 * (which some providers wrap in a system prompt) get a fixed allowance each.
 *
 * @example
 * import { Metering } from "@switchyard/usage-limits"
 * const bound = Metering.boundOf("chat.completions", { model: "gpt-4o", messages: [], max_tokens: 100 }, undefined)
 * // { promptTokens: 36, completionTokens: 100 }
 */
import type { Endpoint } from "@switchyard/core"
import { ModelCatalog } from "@switchyard/providers"

/** Token counts; `completionTokens` may be `Infinity` when nothing bounds the answer. */
export interface Tokens {
  readonly promptTokens: number
  readonly completionTokens: number
}

/** USD per million tokens. */
export interface Price {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

/** Tokens allowed for one image, audio or file part: above what any provider charges for one. */
export const MEDIA_PART_ALLOWANCE = 6_000

/** Tokens allowed for the system prompt some providers add around tool definitions. */
export const TOOLS_ALLOWANCE = 1_000

const MEDIA_TYPES = new Set(["image_url", "input_audio", "file", "image", "audio"])

const mediaParts = (value: unknown): number => {
  if (Array.isArray(value)) {
    let count = 0
    for (const item of value) count += mediaParts(item)
    return count
  }
  if (typeof value !== "object" || value === null) return 0
  let count = "type" in value && typeof value.type === "string" && MEDIA_TYPES.has(value.type) ? 1 : 0
  for (const member of Object.values(value)) {
    if (typeof member === "object" && member !== null) count += mediaParts(member)
  }
  return count
}

const positiveInt = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined

/**
 * The most tokens a call can use: the prompt bound above, and for the answer `max_completion_tokens`
 * or `max_tokens` (times `n`), or else the model's context length from the catalog, or else no
 * bound at all (`Infinity`; the limit then reserves all that is left).
 */
export const boundOf = (
  endpoint: Endpoint.Endpoint,
  body: { readonly [key: string]: unknown },
  contextLength: number | undefined
): Tokens => {
  const text = JSON.stringify(body)
  const tools = Array.isArray(body.tools) || Array.isArray(body.functions) ? TOOLS_ALLOWANCE : 0
  const promptTokens = Buffer.byteLength(text, "utf8") + mediaParts(body.messages) * MEDIA_PART_ALLOWANCE + tools
  if (endpoint === "embeddings") return { promptTokens, completionTokens: 0 }
  const choices = positiveInt(body.n) ?? positiveInt(body.best_of) ?? 1
  const perChoice = positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens) ?? contextLength
  return { promptTokens, completionTokens: perChoice === undefined ? Infinity : perChoice * choices }
}

/** The usage a provider reported (OpenAI's `usage` object), if it reported one. */
export const reportedUsage = (body: unknown): Tokens | undefined => {
  if (typeof body !== "object" || body === null || !("usage" in body)) return undefined
  const usage = body.usage
  if (typeof usage !== "object" || usage === null) return undefined
  const prompt = "prompt_tokens" in usage && typeof usage.prompt_tokens === "number" ? usage.prompt_tokens : undefined
  const completion = "completion_tokens" in usage && typeof usage.completion_tokens === "number"
    ? usage.completion_tokens
    : 0
  const total = "total_tokens" in usage && typeof usage.total_tokens === "number" ? usage.total_tokens : undefined
  if (prompt === undefined && total === undefined) return undefined
  const promptTokens = prompt ?? (total ?? 0) - completion
  return { promptTokens, completionTokens: Math.max(completion, (total ?? 0) - promptTokens) }
}

/** Bytes of generated text: a bound of the tokens an answer cut short had used. */
export const textBytes = (value: unknown): number => {
  if (typeof value === "string") return Buffer.byteLength(value, "utf8")
  if (Array.isArray(value)) {
    let bytes = 0
    for (const item of value) bytes += textBytes(item)
    return bytes
  }
  if (typeof value !== "object" || value === null) return 0
  let bytes = 0
  for (const member of Object.values(value)) bytes += textBytes(member)
  return bytes
}

/** A price from the model catalog, by provider and model (snapshots and aliases included). */
export const catalogPrice = (provider: string, model: string): Price | undefined => {
  const entry = catalogEntry(provider, model)
  return entry === undefined
    ? undefined
    : { inputPerMillion: entry.pricing.input, outputPerMillion: entry.pricing.output }
}

/** The catalog entry of a model, remembered: the lookup normalises the name on every call. */
const catalogEntry = (provider: string, model: string) => {
  const key = `${provider}\n${model}`
  if (entries.has(key)) return entries.get(key)
  const entry = ModelCatalog.find(provider, model)
  // names come from callers: keep a bounded number of them
  if (entries.size >= MAX_REMEMBERED) entries.clear()
  entries.set(key, entry)
  return entry
}
const entries = new Map<string, ModelCatalog.CatalogModel | undefined>()
const MAX_REMEMBERED = 4096

/** The catalog's context length of a model, when it knows the model. */
export const contextLengthOf = (provider: string, model: string): number | undefined =>
  catalogEntry(provider, model)?.contextLength

/** USD for `tokens` at `price`; an unbounded answer costs `Infinity` (never NaN, even when free). */
export const costOf = (price: Price, tokens: Tokens): number => {
  const output = tokens.completionTokens === 0 ? 0 : tokens.completionTokens * price.outputPerMillion
  return (tokens.promptTokens * price.inputPerMillion + (Number.isNaN(output) ? Infinity : output)) / 1_000_000
}

/** Prompt plus completion tokens. */
export const totalOf = (tokens: Tokens): number => tokens.promptTokens + tokens.completionTokens
