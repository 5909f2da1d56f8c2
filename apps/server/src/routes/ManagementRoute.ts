/**
 * The shape every non-inference route shares: authenticate, check the route's scope, decode the
 * body with its schema, run the handler, answer JSON; every failure in the error envelope.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Authenticator } from "@switchyard/auth"
import { GatewayError, Principal, RequestContext } from "@switchyard/core"
import { InvalidInput } from "@switchyard/protocol"
import { Context, Effect, Result, type Schema } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { fromCause } from "../http/ErrorResponse.ts"
import { readJsonObject } from "../http/NodeBody.ts"
import { TRACE_HEADER } from "../http/NodeResponse.ts"

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

/** A route that needs `scope`; the handler answers a JSON value. */
export const route = <R>(
  scope: Principal.Scope,
  handler: (input: RouteInput) => Effect.Effect<unknown, GatewayError.GatewayError, R>
) =>
  Effect.gen(function*() {
    const authenticator = yield* Authenticator.Authenticator
    // the handler's services are taken once, when the route is built, not on every request
    const services = yield* Effect.context<R>()
    return (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function*() {
        const principal = yield* authenticator.authenticate(request.headers[RequestContext.Headers.apiKey])
        if (!Principal.hasScope(principal, scope)) {
          return yield* new GatewayError.Forbidden({ message: `this key lacks the scope "${scope}"` })
        }
        const params = yield* HttpRouter.params
        const body = yield* handler({ principal, params, request }).pipe(Effect.provideContext(services))
        return HttpServerResponse.jsonUnsafe(body, {
          headers: { [TRACE_HEADER]: RequestContext.traceIdOf(request.headers) }
        })
      }).pipe(Effect.catchCause((cause) => fromCause(cause, request.headers)))
  })

/** The request's JSON body decoded with `schema`; a 400 naming the field and the rule otherwise. */
export const body = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = InvalidInput.decodeInputResult(schema)
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<S["Type"], GatewayError.GatewayError> =>
    BodyTimeoutMs.use((timeoutMs) =>
      readJsonObject(NodeHttpServerRequest.toIncomingMessage(request), { maxBytes: MAX_BODY_BYTES, timeoutMs })
    ).pipe(
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
