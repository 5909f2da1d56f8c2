/**
 * What an inference request that ended adds to the request log (extensions.md, "Running it",
 * request log) and to the cost counter, from what its route noted (AccessLine.Details). Run at
 * response close on the hot path, so it only builds the entry and hands it to the log's buffer:
 * no database, no serialising (bodies are kept by reference, and only with GATEWAY_LOG_BODIES).
 * A request refused before it was admitted has no workspace to be listed in, and is not recorded.
 */
import type { GatewayMetrics } from "@switchyard/observability"
import { AnswerFacts, LogRecord, type RequestLog } from "@switchyard/request-log"
import type * as AccessLine from "./AccessLine.ts"

const NO_METADATA: Readonly<Record<string, string>> = Object.freeze({})

export const record = (
  log: RequestLog.RequestLog["Service"],
  metrics: GatewayMetrics.GatewayMetrics["Service"],
  route: string,
  status: number,
  access: AccessLine.Details,
  startedMs: number
): void => {
  const { endpoint, workspaceId } = access
  if (endpoint === undefined || workspaceId === undefined) return
  const endedMs = performance.now()
  const { model, provider, usage } = access
  const costUsd = AnswerFacts.costOf(provider, model, usage, access.cacheStatus)
  if (costUsd !== undefined && costUsd > 0 && provider !== undefined) metrics.cost(provider, model ?? "", costUsd)
  const bodies = access.bodies
  log.record({
    traceId: access.traceId,
    workspaceId,
    apiKeyId: access.apiKeyId,
    receivedAt: access.receivedAt ?? Date.now() - (endedMs - startedMs),
    route,
    endpoint,
    status,
    // a route of another client format notes no `stream`, but a first chunk only a stream has
    stream: access.stream === true || access.firstChunkAt !== undefined,
    provider,
    model,
    targetPath: access.targetPath,
    usage,
    costUsd,
    latencyMs: endedMs - startedMs,
    firstTokenMs: access.firstChunkAt === undefined ? undefined : access.firstChunkAt - startedMs,
    cacheStatus: access.cacheStatus,
    retries: access.retryAttempts,
    metadata: access.metadata ?? NO_METADATA,
    // the route's notes are the request's: the hooks' results, read when the batch is written
    notes: access,
    ...(bodies === undefined ? {} : { requestBody: bodies.request, responseBody: bodies.response })
  })
}

/** Keeps a streamed chunk for the log, until the chunks kept pass the log's body cap. */
export const keepChunk = (
  bodies: NonNullable<AccessLine.Details["bodies"]>,
  chunk: unknown
): void => {
  const kept = bodies.streamedChars ?? 0
  if (kept > LogRecord.MAX_BODY_CHARS) return
  bodies.streamedChars = kept + JSON.stringify(chunk).length
  if (Array.isArray(bodies.response)) bodies.response.push(chunk)
  else bodies.response = [chunk]
}
