/**
 * The shape every non-inference route shares, on Effect's HttpRouter under the same edge rules
 * as the hot path (Edge): admit the caller, decode the body with its schema, run the handler,
 * answer JSON with the trace id; every failure as Edge.failureOf answers it.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type { Authenticator } from "@switchyard/auth"
import { GatewayError, type Principal, RequestContext } from "@switchyard/core"
import { InvalidInput } from "@switchyard/protocol"
import { Context, Effect, Result, type Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type { BodyDeadlines } from "../http/BodyDeadlines.ts"
import * as Edge from "../http/Edge.ts"
import { jsonObjectReader } from "../http/NodeBody.ts"

export interface RouteInput {
  readonly principal: Principal.Principal
  readonly params: Readonly<Record<string, string | undefined>>
  readonly request: HttpServerRequest.HttpServerRequest
}

/** The largest body a management route reads: these are small objects. */
const MAX_BODY_BYTES = 1024 * 1024

/** How long a body may take to arrive (`GATEWAY_BODY_TIMEOUT_SECONDS`); the server sets it. */
export const BodyTimeoutMs = Context.Reference<number>("@switchyard/server/BodyTimeoutMs", {
  defaultValue: () => 60_000
})

/**
 * The largest body an inference route reads (`GATEWAY_MAX_BODY`); the server sets it. Routes on
 * the router that run the pipeline (prompt completions) read theirs under it, not under the
 * management limit.
 */
export const InferenceBodyBytes = Context.Reference<number>("@switchyard/server/InferenceBodyBytes", {
  defaultValue: () => 10 * 1024 * 1024
})

/** A router handler that answers every request, in the envelope when it fails. */
export type Handler = (
  request: HttpServerRequest.HttpServerRequest
) => Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpRouter.RouteContext>

/** A route that needs `scope`; the handler answers a JSON value. */
export const route = <R>(
  scope: Principal.Scope,
  handler: (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
): Effect.Effect<Handler, never, Authenticator.Authenticator | R> =>
  Effect.gen(function*() {
    const admit = yield* Edge.admission(scope)
    // the handler's services are taken once, when the route is built, not on every request
    const services = yield* Effect.context<R>()
    return (request: HttpServerRequest.HttpServerRequest) => {
      const traceId = RequestContext.traceIdOf(request.headers)
      return Effect.gen(function*() {
        const principal = yield* admit(request.headers)
        const params = yield* HttpRouter.params
        const body = yield* handler({ principal, params, request }).pipe(Effect.provideContext(services))
        // a handler that builds its own answer (a stream) gets the trace id on it; any other value is JSON
        return HttpServerResponse.isHttpServerResponse(body)
          ? HttpServerResponse.setHeader(body, Edge.TRACE_HEADER, traceId)
          : Edge.jsonResponse(body, traceId)
      }).pipe(Effect.catchCause((cause) => Effect.map(Edge.failureOf(cause, traceId), Edge.toResponse)))
    }
  })

/** A route anyone may call; its answer carries the trace id like every other. */
export const open = (
  answer: HttpServerResponse.HttpServerResponse | Effect.Effect<HttpServerResponse.HttpServerResponse>
) => {
  const answered = HttpServerResponse.isHttpServerResponse(answer) ? Effect.succeed(answer) : answer
  return (request: HttpServerRequest.HttpServerRequest) =>
    Effect.map(
      answered,
      (response) => HttpServerResponse.setHeader(response, Edge.TRACE_HEADER, RequestContext.traceIdOf(request.headers))
    )
}

/** No route matches: 404 in the envelope. */
export const notFound = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.succeed(Edge.toResponse(Edge.answerOf(
    new GatewayError.NotFound({ message: `no route for ${request.method} ${request.url}` }),
    RequestContext.traceIdOf(request.headers)
  )))

/**
 * The request's JSON body decoded with `schema`; a 400 naming the field and the rule otherwise.
 * `limit: "inference"` reads it under the inference routes' body limit.
 */
export const body = <S extends Schema.Decoder<unknown>>(
  schema: S,
  options?: { readonly limit: "management" | "inference" }
) => {
  const decode = InvalidInput.decodeInputResult(schema)
  const reader = (maxBytes: number) => BodyTimeoutMs.use((timeoutMs) => jsonObjectReader({ maxBytes, timeoutMs }))
  const limitedReader = options?.limit === "inference" ? InferenceBodyBytes.use(reader) : reader(MAX_BODY_BYTES)
  return (
    request: HttpServerRequest.HttpServerRequest
  ): Effect.Effect<S["Type"], GatewayError.GatewayError, BodyDeadlines> =>
    limitedReader.pipe(
      Effect.flatMap((read) => read(NodeHttpServerRequest.toIncomingMessage(request))),
      Effect.flatMap((value) => {
        const decoded = decode(value)
        return Result.isSuccess(decoded)
          ? Effect.succeed(decoded.success)
          : Effect.fail(
            new GatewayError.InvalidRequest({ message: decoded.failure.message, param: decoded.failure.param })
          )
      })
    )
}

/** A path parameter the route pattern guarantees. */
export const param = (input: RouteInput, name: string): string => input.params[name] ?? ""

/** A list answer in the shape every list route shares. */
export const list = <A extends { readonly id: string }>(data: ReadonlyArray<A>) => ({
  object: "list" as const,
  data,
  first_id: data[0]?.id ?? null,
  last_id: data.at(-1)?.id ?? null,
  has_more: false
})
