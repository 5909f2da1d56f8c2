/**
 * The gateway's errors: tagged values, each mapped to exactly one HTTP status and one JSON body
 * by {@link toHttp}. No other module decides a status code.
 */
import { Data } from "effect"

/** The JSON error envelope every error answers with. */
export interface ErrorBody {
  readonly error: {
    readonly message: string
    readonly type: string
    readonly param: string | null
    readonly code: string | null
  }
  readonly [extra: string]: unknown
}

/** 400: the caller's input broke a rule; `param` is the path of the offending field. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly message: string
  readonly param: string | null
}> {}

/** 401: no credentials, or credentials the gateway does not accept. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {}

/** 403: a valid principal without the scope the route needs. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {}

/** 404: no such route, or no such object in the caller's workspace. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

/** 409: the object conflicts with one that exists (a slug already taken). */
export class Conflict
  extends Data.TaggedError("Conflict")<{ readonly message: string; readonly param: string | null }>
{}

/** 408: the upstream did not answer within the request timeout. */
export class UpstreamTimeout extends Data.TaggedError("UpstreamTimeout")<{
  readonly provider: string
  readonly timeoutMs: number
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {}

/** 408: the client was too slow sending its request (its body did not arrive in time). */
export class ClientTimeout extends Data.TaggedError("ClientTimeout")<{ readonly message: string }> {}

/** 413: the request body is larger than the configured limit. */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limitBytes: number }> {}

/**
 * The provider answered with a non-2xx status. Passed through with that status; `body` is the
 * provider's own JSON error when it is OpenAI-shaped, otherwise it is wrapped in the envelope.
 */
export class UpstreamStatus extends Data.TaggedError("UpstreamStatus")<{
  readonly provider: string
  readonly status: number
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {}

/** 502: the provider could not be reached, or its answer could not be read. */
export class UpstreamUnreachable extends Data.TaggedError("UpstreamUnreachable")<{
  readonly provider: string
  readonly message: string
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {}

/** 503: every target that could answer has its circuit open. */
export class TargetsUnavailable extends Data.TaggedError("TargetsUnavailable")<{
  readonly message: string
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {}

/**
 * 446: a hook or guardrail with `deny` failed. `before`: the provider was never called; `after`:
 * the answer was replaced. `hookResults` is answered beside the error, never the denied content.
 */
export class HookDenied extends Data.TaggedError("HookDenied")<{
  readonly stage: "before" | "after"
  readonly hookResults: unknown
}> {}

/** 503: the gateway itself cannot serve this now (it is shutting down, a required store is down). */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly message: string }> {}

/** 500: a fault of the gateway itself. The message is logged, never shown in detail. */
export class InternalError extends Data.TaggedError("InternalError")<{ readonly message: string }> {}

export type GatewayError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | UpstreamTimeout
  | ClientTimeout
  | PayloadTooLarge
  | UpstreamStatus
  | UpstreamUnreachable
  | TargetsUnavailable
  | HookDenied
  | Unavailable
  | InternalError

/** What an error answers over HTTP. */
export interface HttpFailure {
  readonly status: number
  readonly body: ErrorBody
  /** Headers the answer carries besides the gateway's own (a provider's rate-limit hints). */
  readonly headers: Readonly<Record<string, string>>
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})
const RETRY_HEADERS = ["retry-after", "retry-after-ms", "x-ms-retry-after-ms"]

/** A provider's rate-limit hints reach the client, so it can back off as the provider asked. */
const retryHeaders = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  let kept: Record<string, string> | undefined
  for (const name of RETRY_HEADERS) {
    const value = headers[name]
    if (value !== undefined) (kept ??= {})[name] = value
  }
  return kept ?? NO_HEADERS
}

const envelope = (
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null
): ErrorBody => ({
  error: { message, type, param, code }
})

/** Errors of calls to providers: routing, retry and the breaker decide on them. */
export type UpstreamFailure = UpstreamStatus | UpstreamUnreachable | UpstreamTimeout | TargetsUnavailable

export const isUpstreamFailure = (error: GatewayError): error is UpstreamFailure =>
  error._tag === "UpstreamStatus" || error._tag === "UpstreamUnreachable" || error._tag === "UpstreamTimeout" ||
  error._tag === "TargetsUnavailable"

/** The status an upstream failure answers with; undefined for the gateway's own errors (bad input…). */
export const upstreamStatusOf = (error: GatewayError): number | undefined => {
  switch (error._tag) {
    case "UpstreamStatus":
      return error.status
    case "UpstreamUnreachable":
      return 502
    case "UpstreamTimeout":
      return 408
    case "TargetsUnavailable":
      return 503
    default:
      return undefined
  }
}

/** The same upstream failure, carrying more of the gateway's own response headers (later ones win). */
export const withGatewayHeaders = (error: GatewayError, headers: Readonly<Record<string, string>>): GatewayError => {
  switch (error._tag) {
    case "UpstreamStatus":
      return new UpstreamStatus({ ...error, gatewayHeaders: { ...error.gatewayHeaders, ...headers } })
    // an Error's message is not an own enumerable member: spreading the error would drop it
    case "UpstreamUnreachable":
      return new UpstreamUnreachable({
        provider: error.provider,
        message: error.message,
        gatewayHeaders: { ...error.gatewayHeaders, ...headers }
      })
    case "UpstreamTimeout":
      return new UpstreamTimeout({ ...error, gatewayHeaders: { ...error.gatewayHeaders, ...headers } })
    case "TargetsUnavailable":
      return new TargetsUnavailable({ message: error.message, gatewayHeaders: { ...error.gatewayHeaders, ...headers } })
    default:
      return error
  }
}

/** The one mapping from a gateway error to an HTTP status, body and headers. */
export const toHttp = (error: GatewayError): HttpFailure => {
  const gatewayHeaders = isUpstreamFailure(error) ? error.gatewayHeaders ?? NO_HEADERS : NO_HEADERS
  return error._tag === "UpstreamStatus"
    ? {
      status: error.status,
      body: upstreamBody(error),
      headers: { ...retryHeaders(error.headers), ...gatewayHeaders }
    }
    : { ...statusAndBody(error), headers: gatewayHeaders }
}

const statusAndBody = (error: Exclude<GatewayError, UpstreamStatus>): Omit<HttpFailure, "headers"> => {
  switch (error._tag) {
    case "InvalidRequest":
      return { status: 400, body: envelope(error.message, "invalid_request_error", error.param, "invalid_request") }
    case "Unauthorized":
      return { status: 401, body: envelope(error.message, "authentication_error", null, "invalid_api_key") }
    case "Forbidden":
      return { status: 403, body: envelope(error.message, "permission_error", null, "insufficient_scope") }
    case "NotFound":
      return { status: 404, body: envelope(error.message, "not_found_error", null, "not_found") }
    case "Conflict":
      return { status: 409, body: envelope(error.message, "conflict_error", error.param, "conflict") }
    case "UpstreamTimeout":
      return {
        status: 408,
        body: envelope(
          `${error.provider}: no answer within ${error.timeoutMs} ms`,
          "timeout_error",
          null,
          "request_timeout"
        )
      }
    case "ClientTimeout":
      return { status: 408, body: envelope(error.message, "invalid_request_error", null, "request_timeout") }
    case "PayloadTooLarge":
      return {
        status: 413,
        body: envelope(
          `request body is larger than the limit of ${error.limitBytes} bytes`,
          "invalid_request_error",
          null,
          "payload_too_large"
        )
      }
    case "UpstreamUnreachable":
      return {
        status: 502,
        body: envelope(`${error.provider}: ${error.message}`, "upstream_error", null, "bad_gateway")
      }
    case "TargetsUnavailable":
      return { status: 503, body: envelope(error.message, "upstream_error", null, "targets_unavailable") }
    case "HookDenied":
      return {
        status: 446,
        body: {
          ...envelope(
            "The guardrail checks defined in the config failed. You can find more information in the `hook_results` object.",
            "hooks_failed",
            null,
            "hook_denied"
          ),
          hook_results: error.hookResults
        }
      }
    case "Unavailable":
      return { status: 503, body: envelope(error.message, "server_error", null, "unavailable") }
    case "InternalError":
      return { status: 500, body: envelope("internal error", "server_error", null, "internal_error") }
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Keeps an OpenAI-shaped provider error as it is; wraps any other shape in the envelope. */
const upstreamBody = (error: UpstreamStatus): ErrorBody => {
  const body = error.body
  const inner = isRecord(body) ? body.error : undefined
  if (isRecord(body) && isRecord(inner) && typeof inner.message === "string") {
    const message = inner.message
    return {
      ...body,
      error: {
        ...inner,
        message,
        type: typeof inner.type === "string" ? inner.type : "upstream_error",
        param: typeof inner.param === "string" ? inner.param : null,
        code: stringOrNull(inner.code)
      }
    }
  }
  const message = typeof body === "string" && body.length > 0
    ? body
    : isRecord(body) && typeof body.message === "string"
    ? body.message
    : `${error.provider} answered ${error.status}`
  return envelope(message, "upstream_error", null, String(error.status))
}

const stringOrNull = (u: unknown): string | null => typeof u === "number" || typeof u === "string" ? String(u) : null
