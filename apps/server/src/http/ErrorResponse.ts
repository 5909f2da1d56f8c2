/**
 * Every error leaves the server through here, in the JSON envelope, with the trace id.
 */
import { GatewayError } from "@switchyard/core"
import { HttpServerResponse } from "effect/http"

export const TRACE_HEADER = "x-gateway-trace-id"

export const fromGatewayError = (error: GatewayError.GatewayError, headers: Readonly<Record<string, string>> = {}) => {
  const { status, body } = GatewayError.toHttp(error)
  const passthrough = error._tag === "UpstreamStatus" ? retryHeaders(error.headers) : {}
  return HttpServerResponse.jsonUnsafe(body, { status, headers: { ...passthrough, ...headers } })
}

/** A provider's rate-limit hints reach the client, so it can back off as the provider asked. */
const retryHeaders = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const kept: Record<string, string> = {}
  for (const name of ["retry-after", "retry-after-ms", "x-ms-retry-after-ms"]) {
    const value = headers[name]
    if (value !== undefined) kept[name] = value
  }
  return kept
}
