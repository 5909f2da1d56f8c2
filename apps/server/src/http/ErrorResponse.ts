/**
 * Errors of the HttpRouter routes, in the JSON envelope with a trace id, like the hot path's.
 */
import { GatewayError, RequestContext } from "@switchyard/core"
import { HttpServerResponse } from "effect/http"
import { TRACE_HEADER } from "./NodeResponse.ts"

export const fromGatewayError = (
  error: GatewayError.GatewayError,
  requestHeaders: Readonly<Record<string, string>>
) => {
  const { body, headers, status } = GatewayError.toHttp(error)
  return HttpServerResponse.jsonUnsafe(body, {
    status,
    headers: { ...headers, [TRACE_HEADER]: RequestContext.traceIdOf(requestHeaders) }
  })
}
