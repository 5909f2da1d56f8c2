/**
 * The access line every request writes when its exchange ends (extensions.md, "Running it",
 * logs): method, path, status, duration and trace id, and what the route learned on the way.
 * Never a key, a query string, a header value or a body.
 */
import { CacheMiddleware } from "@switchyard/cache"
import { ConfigCompiler, type Endpoint, RequestContext, type RequestNotes } from "@switchyard/core"
import type { LogLine } from "@switchyard/observability"
import { Retry } from "@switchyard/retry"
import type { IncomingMessage, ServerResponse } from "node:http"

/**
 * What a route notes as it learns it, for the access line and the metrics; absent fields are
 * left out. It is also the request's `RequestContext.notes`, where the pipeline's stages note
 * what the request log keeps (the hooks' results), so noting costs no object of its own.
 */
export interface Details extends RequestNotes.RequestNotes {
  readonly traceId: string
  /** The inference endpoint, on the inference routes. */
  endpoint?: Endpoint.Endpoint
  provider?: string
  model?: string
  cacheStatus?: string
  retryAttempts?: number
  apiKeyId?: string
  workspaceId?: string
  /** The model the answer names (a provider may answer with another than the one asked for). */
  responseModel?: string
  /** The answer's usage, when it reports one. */
  usage?: { readonly inputTokens: number; readonly outputTokens: number }
  /** When a streamed answer's first chunk went out (`performance.now()`). */
  firstChunkAt?: number
  /** For the request log: when the request was received (epoch ms), its metadata, whether it streamed. */
  receivedAt?: number
  metadata?: Readonly<Record<string, string>>
  stream?: boolean
  /** The config path of the target that answered (`x-gateway-last-used-option-index`). */
  targetPath?: string
  /** Present only when the request log keeps bodies: the request's, and the answer (a stream's chunks). */
  bodies?: { request?: unknown; response?: unknown; streamedChars?: number }
}

/** Notes what an answer's (or a failure's) gateway headers say. */
export const noteAnswer = (access: Details, headers: Readonly<Record<string, string | number>>): void => {
  const provider = headers[RequestContext.Headers.provider]
  if (typeof provider === "string") access.provider = provider
  const cacheStatus = headers[CacheMiddleware.STATUS_HEADER]
  if (typeof cacheStatus === "string") access.cacheStatus = cacheStatus
  const targetPath = headers[ConfigCompiler.OPTION_INDEX_HEADER]
  if (typeof targetPath === "string") access.targetPath = targetPath
  const retries = Number(headers[Retry.ATTEMPT_COUNT_HEADER])
  if (Number.isInteger(retries)) access.retryAttempts = retries
}

/** Notes the token counts of an answer body or a stream chunk that reports its `usage`. */
export const noteUsage = (access: Details, body: unknown): void => {
  if (typeof body !== "object" || body === null || !("usage" in body)) return
  const usage = body.usage
  if (typeof usage !== "object" || usage === null) return
  const input = "prompt_tokens" in usage ? usage.prompt_tokens : undefined
  const output = "completion_tokens" in usage ? usage.completion_tokens : 0
  if (typeof input === "number" && typeof output === "number") {
    access.usage = { inputTokens: input, outputTokens: output }
  }
}

/** Notes the model an answer body or the first stream chunk that names one says it came from. */
export const noteResponseModel = (access: Details, body: unknown): void => {
  if (access.responseModel !== undefined || typeof body !== "object" || body === null || !("model" in body)) return
  if (typeof body.model === "string") access.responseModel = body.model
}

/**
 * The line for an exchange that ended; a client that left before the status line was sent
 * shows 499, as in the usual proxies' logs.
 */
export const event = (
  request: IncomingMessage,
  response: ServerResponse,
  access: Details,
  startedMs: number
): LogLine.LogEvent => ({
  time: new Date(),
  level: "info",
  message: "request",
  fields: {
    method: request.method,
    path: pathOf(request.url),
    status: statusOf(response),
    duration_ms: Math.round((performance.now() - startedMs) * 100) / 100,
    trace_id: access.traceId,
    provider: access.provider,
    model: access.model,
    cache_status: access.cacheStatus,
    retry_attempts: access.retryAttempts,
    api_key_id: access.apiKeyId,
    workspace_id: access.workspaceId
  }
})

/** The status the client got; 499 when it left before the status line was sent. */
export const statusOf = (response: ServerResponse): number => response.headersSent ? response.statusCode : 499

const pathOf = (url: string | undefined): string => {
  if (url === undefined) return "/"
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}
