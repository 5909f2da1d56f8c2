/**
 * The shared half of every adapter: send one request to a provider over the pooled HttpClient,
 * and read its answer as a JSON body, a provider error, or a stream of SSE events.
 */
import { GatewayError, GatewayRequest, GatewayResponse } from "@switchyard/core"
import { Effect, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpBody, type HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"

export interface UpstreamRequest {
  /** Short provider name, for errors and headers. */
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The serialised JSON body. */
  readonly body: string
}

/** Sends the request; a transport failure is `UpstreamUnreachable`. */
export const send = (
  client: HttpClient.HttpClient,
  request: UpstreamRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, GatewayError.UpstreamUnreachable> =>
  client.execute(
    HttpClientRequest.post(request.url, {
      headers: request.headers,
      body: HttpBody.text(request.body, "application/json")
    })
  ).pipe(
    Effect.mapError((error) =>
      new GatewayError.UpstreamUnreachable({ provider: request.provider, message: describe(error.reason) })
    )
  )

const describe = (reason: { readonly _tag: string; readonly description?: string | undefined; readonly cause?: unknown }) => {
  const cause = reason.cause instanceof Error ? reason.cause.message : undefined
  return reason.description ?? cause ?? reason._tag
}

/** Fails with `UpstreamStatus` (the provider's status, body and headers) unless the status is 2xx. */
export const ensureOk = (provider: string) =>
(
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<HttpClientResponse.HttpClientResponse, GatewayError.UpstreamStatus | GatewayError.UpstreamUnreachable> =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed(response)
    : Effect.flatMap(readBytes(provider, response), (bytes) =>
      Effect.fail(
        new GatewayError.UpstreamStatus({
          provider,
          status: response.status,
          body: parseLenient(bytes),
          headers: response.headers
        })
      ))

/** The whole body as bytes; a broken body is `UpstreamUnreachable`. */
export const readBytes = (
  provider: string,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<Uint8Array, GatewayError.UpstreamUnreachable> =>
  response.arrayBuffer.pipe(
    Effect.map((buffer) => new Uint8Array(buffer)),
    Effect.mapError(() =>
      new GatewayError.UpstreamUnreachable({ provider, message: "the answer was cut before it was complete" })
    )
  )

/** A 2xx JSON answer kept as the provider's bytes, parsed only if a middleware reads it. */
export const readJson = (
  provider: string,
  response: HttpClientResponse.HttpClientResponse,
  headers: GatewayResponse.ResponseHeaders
): Effect.Effect<GatewayResponse.JsonResponse, GatewayError.UpstreamUnreachable> =>
  Effect.map(readBytes(provider, response), (raw) => GatewayResponse.fromBytes(raw, { status: 200, headers }))

/**
 * The `data:` payloads of an SSE answer, up to the `[DONE]` sentinel. A stream that breaks before
 * `[DONE]` ends with `UpstreamUnreachable`, so the client learns the answer is incomplete.
 */
export const readSseData = (
  provider: string,
  response: HttpClientResponse.HttpClientResponse
): Stream.Stream<string, GatewayError.UpstreamUnreachable> =>
  Stream.suspend(() => {
    let finished = false
    const cut = () => new GatewayError.UpstreamUnreachable({ provider, message: "the stream was cut" })
    return response.stream.pipe(
      Stream.decodeText,
      Stream.pipeThroughChannel(Sse.decode()),
      Stream.map((event) => event.data),
      Stream.takeWhile((data) => {
        finished = data === "[DONE]"
        return !finished
      }),
      Stream.mapError(cut),
      Stream.concat(Stream.suspend(() => (finished ? Stream.empty : Stream.fail(cut()))))
    )
  })

const textDecoder = new TextDecoder()

/** JSON when the bytes are JSON, otherwise the text itself (providers sometimes answer HTML). */
export const parseLenient = (bytes: Uint8Array): unknown => {
  const text = textDecoder.decode(bytes)
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The object a JSON text holds, or undefined when the text is not a JSON object. */
export const parseJsonObject = (text: string): GatewayRequest.JsonObject | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return GatewayRequest.isJsonObject(value) ? value : undefined
}
