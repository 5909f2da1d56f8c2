/**
 * The HTTP edge: the rules both ways of serving a request follow (the node:http hot path of the
 * inference routes and the HttpRouter path of every other route, see NodeEdge), so that neither
 * answers differently from the other. Who may call a route ({@link admission}: 401, 403), what a
 * failure answers ({@link failureOf}: the error's status, headers and JSON envelope, the trace id,
 * `connection: close` for a slow client, a defect logged with its cause and answered 500), and
 * the two thin writers of that answer ({@link writeNode}, {@link toResponse}). Bodies are read by
 * NodeBody on both paths (413, 408, 400).
 */
import { Authenticator } from "@switchyard/auth"
import { GatewayError, Principal, RequestContext } from "@switchyard/core"
import { Cause, Effect, Exit, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import type { ServerResponse } from "node:http"

/** Every answer carries the request's trace id (the client's own, else a new one). */
export const TRACE_HEADER = RequestContext.Headers.traceId

export type Headers = Readonly<Record<string, string>>

export type AdmitError = GatewayError.Unauthorized | GatewayError.Forbidden | GatewayError.InternalError

/** The caller of a request, from its `x-gateway-api-key`: 401 without a valid key, 403 without the scope. */
export type Admit = (headers: Headers) => Effect.Effect<Principal.Principal, AdmitError>

/**
 * How a route that needs `scope` admits its callers; taken once, when the route is built.
 *
 * @example
 * const admit = yield* Edge.admission("configs")
 * const principal = yield* admit(request.headers)
 */
export const admission = (scope: Principal.Scope): Effect.Effect<Admit, never, Authenticator.Authenticator> =>
  Effect.gen(function*() {
    const authenticator = yield* Authenticator.Authenticator
    return admitWith(authenticator.authenticate, scope)
  })

const admitWith = (authenticate: Authenticator.Authenticator["Service"]["authenticate"], scope: Principal.Scope) => {
  const refused = Effect.fail(new GatewayError.Forbidden({ message: `this key lacks the scope "${scope}"` }))
  const check = (principal: Principal.Principal) =>
    Principal.hasScope(principal, scope) ? Effect.succeed(principal) : refused
  const admit: Admit = (headers) => {
    const authenticated = authenticate(headers[RequestContext.Headers.apiKey])
    if (!isSettled(authenticated)) return Effect.flatMap(authenticated, check)
    // settled at once (the admin key, a missing key): checked here, so the hot path builds nothing more
    return Exit.isSuccess(authenticated) && !Principal.hasScope(authenticated.value, scope) ? refused : authenticated
  }
  return admit
}

/** An Effect that is already its own result (Effect.succeed and Effect.fail make such values). */
const isSettled = <A, E>(effect: Effect.Effect<A, E>): effect is Exit.Exit<A, E> => Exit.isExit(effect)

/** What a failed request answers: a JSON envelope with its status and headers, written once. */
export interface Failure {
  readonly status: number
  readonly headers: Record<string, string>
  /** The JSON text of the error envelope. */
  readonly body: string
}

/** The answer to a gateway error: its own status, headers and envelope, with the trace id. */
export const answerOf = (error: GatewayError.GatewayError, traceId: string): Failure => {
  const { body, headers, status } = GatewayError.toHttp(error)
  const answer: Record<string, string> = { ...headers, [TRACE_HEADER]: traceId }
  // a client too slow to send its body loses the connection, which it would otherwise keep
  if (error instanceof GatewayError.ClientTimeout) answer.connection = "close"
  return { status, headers: answer, body: JSON.stringify(body) }
}

/**
 * However a request failed: its typed error answers in the envelope (logged with its cause when
 * it answers 5xx); a defect is logged with its
 * cause and the trace id and answers 500, so that no request is left without an answer; an
 * interruption (the client left, or the server is stopping) stays one, and the path ends the
 * exchange.
 *
 * @example
 * handle(request).pipe(Effect.catchCause((cause) => Effect.map(Edge.failureOf(cause, traceId), Edge.toResponse)))
 */
export const failureOf = (
  cause: Cause.Cause<GatewayError.GatewayError>,
  traceId: string
): Effect.Effect<Failure> => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) {
    const failure = answerOf(error.value, traceId)
    // a 5xx is the gateway's or an upstream's fault: an operator needs its cause
    if (failure.status < 500) return Effect.succeed(failure)
    return Effect.logError("request failed", cause).pipe(Effect.annotateLogs({ trace_id: traceId }), Effect.as(failure))
  }
  if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
  return Effect.logError("request failed unexpectedly", cause).pipe(
    Effect.annotateLogs({ trace_id: traceId }),
    // the client never sees the cause, only where to look for it
    Effect.as(answerOf(
      new GatewayError.InternalError({
        message: `the gateway failed unexpectedly while answering this request (trace id ${traceId})`
      }),
      traceId
    ))
  )
}

/** Writes a failure on node's response (the hot path). */
export const writeNode = (response: ServerResponse, failure: Failure): void =>
  writeJson(response, failure.status, { ...failure.headers }, failure.body)

/** A failure as the HttpRouter's response (every other route): the same status, headers and bytes. */
export const toResponse = (failure: Failure): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(failure.body, {
    status: failure.status,
    headers: failure.headers,
    contentType: "application/json"
  })

/** A route's JSON answer on the HttpRouter, with the trace id. */
export const jsonResponse = (body: unknown, traceId: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe(body, { headers: { [TRACE_HEADER]: traceId } })

/** Writes a JSON body on node's response; `headers` is the caller's own object and gains the content headers. */
export const writeJson = (
  response: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Uint8Array | string
): void => {
  headers["content-type"] = "application/json"
  headers["content-length"] = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength
  response.writeHead(status, headers)
  response.end(body)
}
