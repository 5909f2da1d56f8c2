/**
 * The access line every request writes when its exchange ends (extensions.md, "Running it",
 * logs): method, path, status, duration and trace id, and what the route learned on the way.
 * Never a key, a query string, a header value or a body.
 */
import { CacheMiddleware } from "@switchyard/cache"
import { RequestContext } from "@switchyard/core"
import { Retry } from "@switchyard/retry"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { LogEvent } from "../logging/LogLine.ts"

/** What a route notes for the line as it learns it; absent fields are left out. */
export interface Details {
  readonly traceId: string
  provider?: string
  model?: string
  cacheStatus?: string
  retryAttempts?: number
  apiKeyId?: string
  workspaceId?: string
}

/** Notes what an answer's (or a failure's) gateway headers say. */
export const noteAnswer = (access: Details, headers: Readonly<Record<string, string | number>>): void => {
  const provider = headers[RequestContext.Headers.provider]
  if (typeof provider === "string") access.provider = provider
  const cacheStatus = headers[CacheMiddleware.STATUS_HEADER]
  if (typeof cacheStatus === "string") access.cacheStatus = cacheStatus
  const retries = Number(headers[Retry.ATTEMPT_COUNT_HEADER])
  if (Number.isInteger(retries)) access.retryAttempts = retries
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
): LogEvent => ({
  time: new Date(),
  level: "info",
  message: "request",
  fields: {
    method: request.method,
    path: pathOf(request.url),
    status: response.headersSent ? response.statusCode : 499,
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

const pathOf = (url: string | undefined): string => {
  if (url === undefined) return "/"
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}
