/**
 * One inference request as the pipeline sees it: what to call, with which body, for whom.
 */
import type { Endpoint } from "./Endpoint.ts"
import type { RequestContext } from "./RequestContext.ts"

/** A JSON object, already validated against the endpoint's schema at the edge. */
export type JsonObject = { readonly [key: string]: unknown }

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The client's own request when it came in another wire format (the Responses API): a provider
 * that serves that format itself may be sent this body instead of the chat body, as long as the
 * pipeline left the conversation as it was translated (see {@link nativeFor}). It still answers
 * in the chat format, which the rest of the pipeline reads.
 */
export interface NativeRequest {
  /** The client format, e.g. `"responses"`. */
  readonly format: string
  /** The body in that format, as the provider would take it. */
  readonly body: JsonObject
  /** The `messages` of the chat body it was translated into (compared by identity). */
  readonly messages: unknown
}

export interface GatewayRequest {
  readonly endpoint: Endpoint
  /** The provider-bound body in OpenAI format; unknown extra fields are kept. */
  readonly body: JsonObject
  /** Whether the caller asked for a stream (`stream: true`). */
  readonly stream: boolean
  readonly context: RequestContext
  readonly native?: NativeRequest | undefined
}

/**
 * The native request in `format`, while nothing in the pipeline changed the conversation (a
 * mutator hook or guardrail that rewrote the messages makes a new array): then the chat body,
 * which holds the change, is what must be sent.
 */
export const nativeFor = (request: GatewayRequest, format: string): NativeRequest | undefined =>
  request.native !== undefined && request.native.format === format && request.native.messages === request.body.messages
    ? request.native
    : undefined

/** The same request with its body replaced (override_params, mutator hooks). */
export const withBody = (request: GatewayRequest, body: JsonObject): GatewayRequest => ({ ...request, body })
