/**
 * The gateway's errors: tagged values, each of which answers exactly one HTTP status and one JSON
 * body through its own {@link HttpAnswer} method, read by {@link toHttp} only. Feature packages
 * add errors of their own the same way ({@link PackageError}).
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

/** What an error answers over HTTP. */
export interface HttpFailure {
  readonly status: number
  readonly body: ErrorBody
  /** Headers the answer carries besides the gateway's own (a provider's rate-limit hints). */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The method by which an error says how it answers over HTTP. Every gateway error has one, so
 * the mapping lives with each error and {@link toHttp} only asks it: a feature package adds its
 * own error (a guardrail's 446, a usage limit's 412) without editing this module.
 */
export const HttpAnswer: unique symbol = Symbol.for("@switchyard/core/GatewayError/HttpAnswer")

/**
 * An error a feature package defines: tagged, with a message that says what happened, and its
 * own HTTP answer.
 *
 * @example
 * import { GatewayError } from "@switchyard/core"
 * import { Data } from "effect"
 * class LimitReached extends Data.TaggedError("LimitReached")<{ readonly message: string }> {
 *   [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
 *     return { status: 412, body: GatewayError.envelope(this.message, "limit_error", null, "limit_reached"), headers: {} }
 *   }
 * }
 */
export interface PackageError {
  readonly _tag: string
  readonly message: string
  readonly [HttpAnswer]: () => HttpFailure
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})
const RETRY_HEADERS = ["retry-after", "retry-after-ms", "x-ms-retry-after-ms"]

/** The JSON error envelope, for errors that build their own answer. */
export const envelope = (
  message: string,
  type: string,
  param: string | null = null,
  code: string | null = null
): ErrorBody => ({
  error: { message, type, param, code }
})

const answer = (status: number, body: ErrorBody, headers: Readonly<Record<string, string>> = NO_HEADERS) => ({
  status,
  body,
  headers
})

/** 400: the caller's input broke a rule; `param` is the path of the offending field. */
export class InvalidRequest extends Data.TaggedError("InvalidRequest")<{
  readonly message: string
  readonly param: string | null
}> {
  [HttpAnswer](): HttpFailure {
    return answer(400, envelope(this.message, "invalid_request_error", this.param, "invalid_request"))
  }
}

/** 401: no credentials, or credentials the gateway does not accept. */
export class Unauthorized extends Data.TaggedError("Unauthorized")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(401, envelope(this.message, "authentication_error", null, "invalid_api_key"))
  }
}

/** 403: a valid principal without the scope the route needs. */
export class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(403, envelope(this.message, "permission_error", null, "insufficient_scope"))
  }
}

/** 404: no such route, or no such object in the caller's workspace. */
export class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(404, envelope(this.message, "not_found_error", null, "not_found"))
  }
}

/** 409: the object conflicts with one that exists (a slug already taken). */
export class Conflict
  extends Data.TaggedError("Conflict")<{ readonly message: string; readonly param: string | null }>
{
  [HttpAnswer](): HttpFailure {
    return answer(409, envelope(this.message, "conflict_error", this.param, "conflict"))
  }
}

/** 408: the upstream did not answer within the request timeout. */
export class UpstreamTimeout extends Data.TaggedError("UpstreamTimeout")<{
  readonly provider: string
  readonly timeoutMs: number
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {
  [HttpAnswer](): HttpFailure {
    return answer(
      408,
      envelope(`${this.provider}: no answer within ${this.timeoutMs} ms`, "timeout_error", null, "request_timeout"),
      this.gatewayHeaders
    )
  }
}

/** 408: the client was too slow sending its request (its body did not arrive in time). */
export class ClientTimeout extends Data.TaggedError("ClientTimeout")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(408, envelope(this.message, "invalid_request_error", null, "request_timeout"))
  }
}

/** 413: the request body is larger than the configured limit. */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limitBytes: number }> {
  [HttpAnswer](): HttpFailure {
    return answer(
      413,
      envelope(
        `request body is larger than the limit of ${this.limitBytes} bytes`,
        "invalid_request_error",
        null,
        "payload_too_large"
      )
    )
  }
}

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
}> {
  [HttpAnswer](): HttpFailure {
    return answer(this.status, upstreamBody(this), { ...retryHeaders(this.headers), ...this.gatewayHeaders })
  }
}

/** 502: the provider could not be reached, or its answer could not be read. */
export class UpstreamUnreachable extends Data.TaggedError("UpstreamUnreachable")<{
  readonly provider: string
  readonly message: string
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {
  [HttpAnswer](): HttpFailure {
    return answer(
      502,
      envelope(`${this.provider}: ${this.message}`, "upstream_error", null, "bad_gateway"),
      this.gatewayHeaders
    )
  }
}

/** 503: every target that could answer has its circuit open. */
export class TargetsUnavailable extends Data.TaggedError("TargetsUnavailable")<{
  readonly message: string
  readonly gatewayHeaders?: Readonly<Record<string, string>> | undefined
}> {
  [HttpAnswer](): HttpFailure {
    return answer(503, envelope(this.message, "upstream_error", null, "targets_unavailable"), this.gatewayHeaders)
  }
}

/** 503: the gateway itself cannot serve this now (it is shutting down, a required store is down). */
export class Unavailable extends Data.TaggedError("Unavailable")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(503, envelope(this.message, "server_error", null, "unavailable"))
  }
}

/** 500: a fault of the gateway itself. The message is logged, never shown in detail. */
export class InternalError extends Data.TaggedError("InternalError")<{ readonly message: string }> {
  [HttpAnswer](): HttpFailure {
    return answer(500, envelope("internal error", "server_error", null, "internal_error"))
  }
}

/** Every error a Dispatch may fail with: core's own, and any a feature package adds. */
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
  | Unavailable
  | InternalError
  | PackageError

/** A provider's rate-limit hints reach the client, so it can back off as the provider asked. */
const retryHeaders = (headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  let kept: Record<string, string> | undefined
  for (const name of RETRY_HEADERS) {
    const value = headers[name]
    if (value !== undefined) (kept ??= {})[name] = value
  }
  return kept ?? NO_HEADERS
}

/** Errors of calls to providers: routing, retry and the breaker decide on them. */
export type UpstreamFailure = UpstreamStatus | UpstreamUnreachable | UpstreamTimeout | TargetsUnavailable

export const isUpstreamFailure = (error: GatewayError): error is UpstreamFailure =>
  error instanceof UpstreamStatus || error instanceof UpstreamUnreachable || error instanceof UpstreamTimeout ||
  error instanceof TargetsUnavailable

/** The status an upstream failure answers with; undefined for the gateway's own errors (bad input…). */
export const upstreamStatusOf = (error: GatewayError): number | undefined =>
  isUpstreamFailure(error) ? error[HttpAnswer]().status : undefined

/** The same upstream failure, carrying more of the gateway's own response headers (later ones win). */
export const withGatewayHeaders = (error: GatewayError, headers: Readonly<Record<string, string>>): GatewayError => {
  if (!isUpstreamFailure(error)) return error
  const gatewayHeaders = { ...error.gatewayHeaders, ...headers }
  // an Error's message is not an own enumerable member: spreading the error would drop it
  if (error instanceof UpstreamStatus) return new UpstreamStatus({ ...error, gatewayHeaders })
  if (error instanceof UpstreamUnreachable) {
    return new UpstreamUnreachable({ provider: error.provider, message: error.message, gatewayHeaders })
  }
  if (error instanceof UpstreamTimeout) return new UpstreamTimeout({ ...error, gatewayHeaders })
  return new TargetsUnavailable({ message: error.message, gatewayHeaders })
}

/** The one way from a gateway error to an HTTP status, body and headers: the error's own answer. */
export const toHttp = (error: GatewayError): HttpFailure => error[HttpAnswer]()

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
