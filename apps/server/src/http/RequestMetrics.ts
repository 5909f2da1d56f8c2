/**
 * What a request that ended adds to the metrics (extensions.md, "Running it", metrics): every
 * request counts by route and status; an inference request answered by a provider also adds its
 * duration, its tokens, its first chunk, its cache lookup and its retries, from what its route
 * noted (see AccessLine.Details). A cache hit counts its duration but no tokens.
 */
import type { Endpoint } from "@switchyard/core"
import type { GatewayMetrics } from "@switchyard/observability"
import type * as AccessLine from "./AccessLine.ts"

/** The GenAI conventions' names of the operations. */
const operations: Readonly<Record<Endpoint.Endpoint, string>> = {
  "chat.completions": "chat",
  completions: "text_completion",
  embeddings: "embeddings"
}

export const record = (
  metrics: GatewayMetrics.GatewayMetrics["Service"],
  route: string,
  status: number,
  access: AccessLine.Details,
  startedMs: number,
  endedMs: number
): void => {
  metrics.request(route, status)
  if (access.cacheStatus !== undefined) metrics.cacheLookup(access.cacheStatus)
  const { endpoint, model, provider } = access
  if (endpoint === undefined || provider === undefined) return
  const operation = { operation: operations[endpoint], provider, model: model ?? "" }
  metrics.operation(operation, (endedMs - startedMs) / 1000)
  // an answer from the cache used no provider tokens
  const hit = access.cacheStatus === "HIT" || access.cacheStatus === "SEMANTIC HIT"
  if (access.usage !== undefined && !hit) metrics.tokens(operation, access.usage)
  if (access.firstChunkAt !== undefined) metrics.firstToken(operation, (access.firstChunkAt - startedMs) / 1000)
  if (access.retryAttempts !== undefined) metrics.retries(provider, access.retryAttempts)
}
