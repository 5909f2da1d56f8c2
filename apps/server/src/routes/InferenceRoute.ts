/**
 * POST /v1/chat/completions, /v1/completions, /v1/embeddings: the hot path. It runs on node:http
 * directly (see NodeEdge) under the same edge rules as every other route (Edge): admit the
 * caller, read the body, run the gateway pipeline, write its answer as JSON bytes or as
 * server-sent events, or the failure in the envelope.
 */
import type { Authenticator } from "@switchyard/auth"
import { type Endpoint, Gateway, type Principal, RequestContext } from "@switchyard/core"
import { Effect } from "effect"
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import * as AccessLine from "../http/AccessLine.ts"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import * as Edge from "../http/Edge.ts"
import { type BodyLimits, jsonObjectReader } from "../http/NodeBody.ts"
import type { NodeHandler } from "../http/NodeEdge.ts"
import * as NodeResponse from "../http/NodeResponse.ts"

export interface InferenceRouteOptions {
  readonly body: BodyLimits
}

/** The handler of one inference endpoint, with its services taken once at build time. */
export const make = (
  endpoint: Endpoint.Endpoint,
  scope: Principal.Scope,
  options: InferenceRouteOptions
): Effect.Effect<NodeHandler, never, Authenticator.Authenticator | Gateway.Gateway | BodyDeadlines> =>
  Effect.gen(function*() {
    const admit = yield* Edge.admission(scope)
    const readJsonObject = yield* jsonObjectReader(options.body)
    const gateway = yield* Gateway.Gateway
    const handle: NodeHandler = (request, response, access) => {
      const headers = headerRecord(request)
      const traceId = access.traceId
      access.endpoint = endpoint
      // a chain rather than a generator, as in Gateway.handle: less garbage on every request
      const answer = Effect.flatMap(admit(headers), (principal) => {
        access.apiKeyId = principal.keyId
        access.workspaceId = principal.workspaceId
        return Effect.flatMap(readJsonObject(request), (body) => {
          if (typeof body.model === "string") access.model = body.model
          if (body.stream === true) access.stream = true
          // the edge asks for bodies only when the request log keeps them
          if (access.bodies !== undefined) access.bodies.request = body
          const receivedAt = Date.now()
          access.receivedAt = receivedAt
          return Effect.flatMap(
            RequestContext.make({ traceId, headers, principal, receivedAt, notes: access }),
            (context) => {
              access.metadata = context.metadata
              return gateway.handle({ endpoint, body, context })
            }
          )
        })
      })
      return Effect.flatMap(answer, (answer) => {
        AccessLine.noteAnswer(access, answer.headers)
        return NodeResponse.write(response, answer, access)
      }).pipe(
        Effect.catchCause((cause) => NodeResponse.writeCause(response, cause, access)),
        Effect.onInterrupt(() => Effect.sync(() => NodeResponse.writeInterrupted(response, traceId)))
      )
    }
    return handle
  })

/**
 * node:http gives repeated headers as arrays (only a few, such as set-cookie); join them as the
 * router does. Most requests have none, and keep node's own object.
 */
export const headerRecord = (request: IncomingMessage): Readonly<Record<string, string>> => {
  const raw = request.headers
  if (allStrings(raw)) return raw
  const headers: Record<string, string> = {}
  for (const name in raw) {
    const value = raw[name]
    if (value !== undefined) headers[name] = typeof value === "string" ? value : value.join(", ")
  }
  return headers
}

const allStrings = (headers: IncomingHttpHeaders): headers is Record<string, string> => {
  for (const name in headers) if (typeof headers[name] !== "string") return false
  return true
}
