/**
 * The hot path's request spans (extensions.md, "Running it", traces), when tracing is on: one
 * server span per inference request, started as it arrives (continuing the caller's W3C
 * `traceparent`) and ended when its exchange closes, after a stream's last chunk, with the GenAI
 * and HTTP attributes of what the route noted (see AccessLine.Details). The pipeline's spans
 * (checks, upstream attempts) are its children. The routes on effect's router get their server
 * span from effect's own HTTP middleware.
 */
import { Endpoint } from "@switchyard/core"
import { Tracing } from "@switchyard/observability"
import { Clock, Effect, type Tracer } from "effect"
import type { IncomingMessage } from "node:http"
import type * as AccessLine from "./AccessLine.ts"

export interface RequestSpans {
  readonly start: (request: IncomingMessage, route: string) => Tracer.Span
  readonly end: (span: Tracer.Span, route: string, status: number, access: AccessLine.Details) => void
}

/** The edge's request spans; none when tracing is off, so the edge makes no span at all. */
export const make: Effect.Effect<RequestSpans | undefined> = Effect.gen(function*() {
  if (!(yield* Tracing.Enabled)) return undefined
  const tracer = yield* Effect.tracer
  const clock = yield* Clock.Clock
  const sampler = yield* Tracing.Sampling
  return {
    start: (request, route) => {
      const traceparent = request.headers.traceparent
      const given = typeof traceparent === "string" ? traceparent : undefined
      return Tracing.startServerSpan(tracer, clock, sampler, route, given)
    },
    end: (span, route, status, access) =>
      Tracing.endServerSpan(span, clock, status, requestAttributes, attributesOf(route, status, access))
  }
})

/** The request span's attributes, in the order of {@link attributesOf}'s values. */
const requestAttributes = new Tracing.AttributeLayout([
  "http.request.method",
  "http.route",
  "http.response.status_code",
  "gateway.trace_id",
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model",
  "gen_ai.response.model",
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.output_tokens",
  "gateway.cache.status",
  "gateway.retry.attempts",
  "gateway.api_key.id",
  "gateway.workspace.id"
])

const attributesOf = (route: string, status: number, access: AccessLine.Details): Array<Tracing.AttributeValue> => {
  const space = route.indexOf(" ")
  // an answer from the cache used no provider tokens, as the metrics count them
  const hit = access.cacheStatus === "HIT" || access.cacheStatus === "SEMANTIC HIT"
  const usage = hit ? undefined : access.usage
  return [
    route.slice(0, space),
    route.slice(space + 1),
    status,
    access.traceId,
    access.endpoint === undefined ? undefined : Endpoint.operationNames[access.endpoint],
    access.provider,
    access.model,
    access.responseModel,
    usage?.inputTokens,
    usage?.outputTokens,
    access.cacheStatus,
    access.retryAttempts,
    access.apiKeyId,
    access.workspaceId
  ]
}
