/**
 * POST /v1/chat/completions, /v1/completions, /v1/embeddings: authenticate, read the body, run
 * the gateway pipeline, and write its answer as JSON or as server-sent events.
 */
import { Authenticator } from "@switchyard/auth"
import { type Endpoint, Gateway, GatewayError, type GatewayResponse, Principal, RequestContext } from "@switchyard/core"
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { fromGatewayError, TRACE_HEADER } from "../http/ErrorResponse.ts"
import * as JsonBody from "../http/JsonBody.ts"
import * as SseBody from "../http/SseBody.ts"

export interface InferenceRouteOptions {
  readonly maxBodyBytes: number
}

/** The handler of one inference endpoint, with its services taken once at build time. */
export const make = (endpoint: Endpoint.Endpoint, options: InferenceRouteOptions) =>
  Effect.gen(function*() {
    const authenticator = yield* Authenticator.Authenticator
    const gateway = yield* Gateway.Gateway
    return (request: HttpServerRequest.HttpServerRequest) => {
      const headers = request.headers
      const traceId = RequestContext.traceIdOf(headers)
      return Effect.gen(function*() {
        const principal = yield* authenticator.authenticate(headers[RequestContext.Headers.apiKey])
        if (!Principal.hasScope(principal, "completions")) {
          return yield* new GatewayError.Forbidden({ message: "this key lacks the scope \"completions\"" })
        }
        const body = yield* JsonBody.read(request, options.maxBodyBytes)
        const context = yield* RequestContext.make({ traceId, headers, principal, receivedAt: Date.now() })
        const response = yield* gateway.handle({ endpoint, body, context })
        return toHttp(response, traceId)
      }).pipe(Effect.catch((error) => Effect.succeed(fromGatewayError(error, { [TRACE_HEADER]: traceId }))))
    }
  })

const toHttp = (response: GatewayResponse.GatewayResponse, traceId: string): HttpServerResponse.HttpServerResponse => {
  const headers = { ...response.headers, [TRACE_HEADER]: traceId }
  if (response._tag === "Stream") {
    return HttpServerResponse.stream(SseBody.encode(response.chunks), {
      status: response.status,
      contentType: "text/event-stream",
      headers: { ...headers, "cache-control": "no-cache" }
    })
  }
  return response.raw === undefined
    ? HttpServerResponse.jsonUnsafe(response.body(), { status: response.status, headers })
    : HttpServerResponse.uint8Array(response.raw, { status: response.status, contentType: "application/json", headers })
}
