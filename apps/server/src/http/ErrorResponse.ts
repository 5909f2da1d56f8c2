/**
 * Errors of the HttpRouter routes, in the JSON envelope with a trace id, like the hot path's.
 */
import { GatewayError, RequestContext } from "@switchyard/core"
import { Cause, Effect, Option } from "effect"
import { HttpServerResponse } from "effect/http"
import { TRACE_HEADER } from "./NodeResponse.ts"
import * as UnexpectedFailure from "./UnexpectedFailure.ts"

export const fromGatewayError = (
  error: GatewayError.GatewayError,
  requestHeaders: Readonly<Record<string, string>>
) => {
  const { body, headers, status } = GatewayError.toHttp(error)
  return HttpServerResponse.jsonUnsafe(body, {
    status,
    headers: {
      ...headers,
      [TRACE_HEADER]: RequestContext.traceIdOf(requestHeaders),
      // a client too slow to send its body loses the connection
      ...(error instanceof GatewayError.ClientTimeout ? { connection: "close" } : {})
    }
  })
}

/** However a route failed: its typed error, or a defect answered 500 and logged with its cause. */
export const fromCause = (
  cause: Cause.Cause<GatewayError.GatewayError>,
  requestHeaders: Readonly<Record<string, string>>
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) return Effect.succeed(fromGatewayError(error.value, requestHeaders))
  // interrupted: the client left or the server is stopping; the router ends the exchange
  if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
  return Effect.map(
    UnexpectedFailure.report(cause, RequestContext.traceIdOf(requestHeaders)),
    (internal) => fromGatewayError(internal, requestHeaders)
  )
}
