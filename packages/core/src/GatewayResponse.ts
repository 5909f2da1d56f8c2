/**
 * What a Dispatch answers: a complete JSON body, or a stream of OpenAI-format chunks. Only the
 * HTTP edge turns a stream into SSE bytes, so middleware sees both forms as values.
 */
import type { Stream } from "effect"
import type { GatewayError } from "./GatewayError.ts"
import type { JsonObject } from "./GatewayRequest.ts"

/** Response headers the gateway adds (`x-gateway-provider`, …); lower-case names. */
export type ResponseHeaders = Readonly<Record<string, string>>

export interface JsonResponse {
  readonly _tag: "Json"
  readonly status: number
  readonly headers: ResponseHeaders
  /** The answer as a value; the edge serialises it unless `raw` holds the same bytes. */
  readonly body: () => unknown
  /**
   * The provider's bytes, when the body was not changed on the way: the edge then writes them
   * as they are instead of serialising again.
   */
  readonly raw: Uint8Array | undefined
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
): JsonResponse => ({
  _tag: "Json",
  status: options?.status ?? 200,
  headers: options?.headers ?? {},
  body: () => body,
  raw: undefined
})

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
  return {
    _tag: "Json",
    status: options?.status ?? 200,
    headers: options?.headers ?? {},
    body: () => value,
    raw
  }
}

/** A stream answer. */
export const stream = (
  chunks: Stream.Stream<JsonObject, GatewayError>,
  options?: { readonly headers?: ResponseHeaders }
): StreamResponse => ({ _tag: "Stream", status: 200, headers: options?.headers ?? {}, chunks })

/** The same answer with more headers (later ones win). */
export const withHeaders = <R extends GatewayResponse>(response: R, headers: ResponseHeaders): R => ({
  ...response,
  headers: { ...response.headers, ...headers }
})

const textDecoder = new TextDecoder()
