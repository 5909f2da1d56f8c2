/**
 * What a Dispatch answers: a complete JSON body, or a stream of OpenAI-format chunks. Only the
 * HTTP edge turns a stream into SSE bytes, so middleware sees both forms as values.
 */
import type { Stream } from "effect"
import type { GatewayError } from "./GatewayError.ts"
import type { JsonObject } from "./GatewayRequest.ts"

/** Response headers the gateway adds (`x-gateway-provider`, …); lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string>>

/**
 * A complete JSON answer. It may keep the provider's own bytes, which the edge then writes as they
 * are; the only way to another body is {@link JsonResponse.withBody}, which lets them go, so stale
 * bytes can never be written for a changed body. (The private field makes a copied object literal
 * no JsonResponse: `{ ...response, body }` does not typecheck.)
 */
export class JsonResponse {
  readonly _tag = "Json"
  readonly status: number
  readonly headers: ResponseHeaders
  readonly #value: unknown
  readonly #raw: Uint8Array | undefined

  constructor(status: number, headers: ResponseHeaders, value: unknown, raw: Uint8Array | undefined) {
    this.status = status
    this.headers = headers
    this.#value = value
    this.#raw = raw
  }

  /** The answer as a value. */
  body(): unknown {
    return this.#value
  }

  /** The answer as the edge writes it: the provider's own bytes while the body is theirs. */
  text(): Uint8Array | string {
    return this.#raw ?? JSON.stringify(this.#value)
  }

  /** The same answer with another body (the provider's bytes are let go). */
  withBody(value: unknown): JsonResponse {
    return new JsonResponse(this.status, this.headers, value, undefined)
  }

  /** The same answer with more headers (later ones win). */
  withHeaders(headers: ResponseHeaders): JsonResponse {
    return new JsonResponse(this.status, { ...this.headers, ...headers }, this.#value, this.#raw)
  }
}

export interface StreamResponse {
  readonly _tag: "Stream"
  readonly status: number
  readonly headers: ResponseHeaders
  /** OpenAI-format chunks (`chat.completion.chunk`, `text_completion`) as they arrive. */
  readonly chunks: Stream.Stream<JsonObject, GatewayError>
}

export type GatewayResponse = JsonResponse | StreamResponse

/** A JSON answer built from a value. */
export const json = (
  body: unknown,
  options?: { readonly status?: number; readonly headers?: ResponseHeaders }
): JsonResponse => new JsonResponse(options?.status ?? 200, options?.headers ?? {}, body, undefined)

/**
 * A JSON answer that keeps the provider's bytes, so the edge writes them as they are; undefined
 * when the bytes are not JSON. They are parsed here, once: an answer that claims JSON but does
 * not parse must never be relayed as a success nor cached, and the value is ready for any
 * middleware that reads it.
 */
export const fromJsonBytes = (
  raw: Uint8Array,
  options?: { readonly status?: number; readonly headers?: ResponseHeaders }
): JsonResponse | undefined => {
  let value: unknown
  try {
    value = JSON.parse(textDecoder.decode(raw))
  } catch {
    return undefined
  }
  return new JsonResponse(options?.status ?? 200, options?.headers ?? {}, value, raw)
}

/** A stream answer. */
export const stream = (
  chunks: Stream.Stream<JsonObject, GatewayError>,
  options?: { readonly headers?: ResponseHeaders }
): StreamResponse => ({ _tag: "Stream", status: 200, headers: options?.headers ?? {}, chunks })

/** The same answer with more headers (later ones win). */
export function withHeaders(response: JsonResponse, headers: ResponseHeaders): JsonResponse
export function withHeaders(response: StreamResponse, headers: ResponseHeaders): StreamResponse
export function withHeaders(response: GatewayResponse, headers: ResponseHeaders): GatewayResponse
export function withHeaders(response: GatewayResponse, headers: ResponseHeaders): GatewayResponse {
  return response._tag === "Json"
    ? response.withHeaders(headers)
    : { ...response, headers: { ...response.headers, ...headers } }
}

const textDecoder = new TextDecoder()
