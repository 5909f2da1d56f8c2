/**
 * One inference request as the pipeline sees it: what to call, with which body, for whom.
 */
import type { Endpoint } from "./Endpoint.ts"
import type { RequestContext } from "./RequestContext.ts"

/** A JSON object, already validated against the endpoint's schema at the edge. */
export type JsonObject = { readonly [key: string]: unknown }

export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export interface GatewayRequest {
  readonly endpoint: Endpoint
  /** The provider-bound body in OpenAI format; unknown extra fields are kept. */
  readonly body: JsonObject
  /** Whether the caller asked for a stream (`stream: true`). */
  readonly stream: boolean
  readonly context: RequestContext
}

/** The same request with its body replaced (override_params, mutator hooks). */
export const withBody = (request: GatewayRequest, body: JsonObject): GatewayRequest => ({ ...request, body })
