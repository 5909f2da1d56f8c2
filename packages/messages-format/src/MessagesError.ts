/**
 * Errors on the Messages routes in Anthropic's shape (`{ type: "error", error: { type, message } }`,
 * docs.anthropic.com, "Errors"), with the status the gateway gives the same failure on chat
 * completions: the type is read from the status as Anthropic's table gives it, the message is the
 * gateway's own (it names the field and the rule for bad input).
 */
import { GatewayError } from "@switchyard/core"
import { Schema } from "effect"

/** Anthropic's error type for an HTTP status. */
export const errorTypeOf = (status: number): string => {
  switch (status) {
    case 400:
      return "invalid_request_error"
    case 401:
      return "authentication_error"
    case 402:
      return "billing_error"
    case 403:
    case 446:
      return "permission_error"
    case 404:
      return "not_found_error"
    case 408:
    case 504:
      return "timeout_error"
    case 413:
      return "request_too_large"
    case 429:
      return "rate_limit_error"
    case 503:
    case 529:
      return "overloaded_error"
    default:
      return status >= 500 ? "api_error" : "invalid_request_error"
  }
}

export const ErrorBody = Schema.Struct({
  type: Schema.Literal("error"),
  error: Schema.Struct({ type: Schema.String, message: Schema.String })
}).annotate({ description: "Anthropic's error shape: the type follows the status, the message says what happened." })
export type ErrorBody = typeof ErrorBody.Type

/**
 * The Anthropic error body of a status and a message.
 *
 * @example
 * import { MessagesError } from "@switchyard/messages-format"
 * MessagesError.body(400, "max_tokens: is required")
 * // { type: "error", error: { type: "invalid_request_error", message: "max_tokens: is required" } }
 */
export const body = (status: number, message: string): ErrorBody => ({
  type: "error",
  error: { type: errorTypeOf(status), message }
})

/** What a gateway error answers on this route: its own status and headers, Anthropic's body. */
export const answerOf = (
  error: GatewayError.GatewayError
): { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: ErrorBody } => {
  const http = GatewayError.toHttp(error)
  return { status: http.status, headers: http.headers, body: body(http.status, http.body.error.message) }
}
