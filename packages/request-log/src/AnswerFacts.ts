/**
 * What an answer tells the request log, read the same way wherever a request is recorded (the
 * HTTP edge, an in-process call): the gateway's response headers (provider, target path, cache
 * status, retries), the usage an answer or a stream's last chunk reports, and the cost of that
 * usage at the model catalog's prices (the catalog's `costOf`, the one the budgets use).
 */
import { ModelCatalog } from "@switchyard/providers"

/** Header names other packages set on an answer; read here as text so none becomes a dependency. */
export const Headers = {
  provider: "x-gateway-provider",
  targetPath: "x-gateway-last-used-option-index",
  cacheStatus: "x-gateway-cache-status",
  retries: "x-gateway-retry-attempt-count"
} as const

export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The usage an answer body or a stream chunk reports (OpenAI's `usage`), if any. */
export const usageOf = (body: unknown): Usage | undefined => {
  if (typeof body !== "object" || body === null || !("usage" in body)) return undefined
  const usage = body.usage
  if (typeof usage !== "object" || usage === null) return undefined
  const input = "prompt_tokens" in usage ? usage.prompt_tokens : undefined
  const output = "completion_tokens" in usage ? usage.completion_tokens : 0
  return typeof input === "number" && typeof output === "number"
    ? { inputTokens: input, outputTokens: output }
    : undefined
}

/** A cache hit called no provider: it cost nothing. */
export const isCacheHit = (cacheStatus: string | undefined): boolean =>
  cacheStatus === "HIT" || cacheStatus === "SEMANTIC HIT"

/**
 * USD at the catalog's list prices; 0 for a cache hit; undefined without usage or for a model the
 * catalog does not price.
 */
export const costOf = (
  provider: string | undefined,
  model: string | undefined,
  usage: Usage | undefined,
  cacheStatus: string | undefined
): number | undefined => {
  if (isCacheHit(cacheStatus)) return 0
  if (provider === undefined || model === undefined || usage === undefined) return undefined
  return ModelCatalog.costOf(provider, model, {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens
  })
}

/** The retries an answer's header counts, if it has one. */
export const retriesOf = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const retries = Number(value)
  return Number.isInteger(retries) ? retries : undefined
}
