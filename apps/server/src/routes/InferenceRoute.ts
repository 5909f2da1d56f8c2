/**
 * POST /v1/chat/completions, /v1/completions, /v1/embeddings: the hot path. It runs on node:http
 * directly (see NodeEdge): authenticate, read the body, run the gateway pipeline, write its
 * answer as JSON bytes or as server-sent events.
 */
import { Authenticator } from "@switchyard/auth"
import { type Endpoint, Gateway, GatewayError, Principal, RequestContext } from "@switchyard/core"
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type BodyLimits, readJsonObject } from "../http/NodeBody.ts"
import type { NodeHandler } from "../http/NodeEdge.ts"
import * as NodeResponse from "../http/NodeResponse.ts"

export interface InferenceRouteOptions {
  readonly body: BodyLimits
}

/** The handler of one inference endpoint, with its services taken once at build time. */
export const make = (endpoint: Endpoint.Endpoint, scope: Principal.Scope, options: InferenceRouteOptions) =>
  Effect.gen(function*() {
    const authenticator = yield* Authenticator.Authenticator
    const gateway = yield* Gateway.Gateway
    const handle = (request: IncomingMessage, response: ServerResponse) => {
      const headers = headerRecord(request)
      const traceId = RequestContext.traceIdOf(headers)
      return Effect.gen(function*() {
        const principal = yield* authenticator.authenticate(headers[RequestContext.Headers.apiKey])
        if (!Principal.hasScope(principal, scope)) {
          return yield* new GatewayError.Forbidden({ message: `this key lacks the scope "${scope}"` })
        }
        const body = yield* readJsonObject(request, options.body)
        const context = yield* RequestContext.make({ traceId, headers, principal, receivedAt: Date.now() })
        const answer = yield* gateway.handle({ endpoint, body, context })
        yield* NodeResponse.write(response, answer, traceId)
      }).pipe(
        Effect.catchCause((cause) => NodeResponse.writeCause(response, cause, traceId)),
        Effect.onInterrupt(() => Effect.sync(() => NodeResponse.writeInterrupted(response, traceId)))
      )
    }
    const handler: NodeHandler = handle
    return handler
  })

/** node:http gives repeated headers as arrays (only a few, such as set-cookie); join them. */
const headerRecord = (request: IncomingMessage): Readonly<Record<string, string>> => {
  const raw = request.headers
  const headers: Record<string, string> = {}
  for (const name in raw) {
    const value = raw[name]
    if (value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return headers
}
