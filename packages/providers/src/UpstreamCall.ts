/**
 * The shared half of every adapter: read a provider's answer as a JSON body, a provider error, or
 * a stream of SSE `data:` payloads.
 */
import { GatewayError, GatewayRequest, GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { Effect, Stream } from "effect"
import { Sse } from "effect/encoding"
import type { UpstreamResponse } from "./UpstreamClient.ts"

/** Fails with `UpstreamStatus` (the provider's status, body and headers) unless the status is 2xx. */
export const ensureOk = (provider: string) =>
(
  response: UpstreamResponse
): Effect.Effect<UpstreamResponse, GatewayError.UpstreamStatus | GatewayError.UpstreamUnreachable> =>
  response.status >= 200 && response.status < 300
    ? Effect.succeed(response)
    : Effect.flatMap(response.bytes, (bytes) =>
      Effect.fail(
        new GatewayError.UpstreamStatus({
          provider,
          status: response.status,
          body: parseLenient(bytes),
          headers: response.headers
        })
      ))

/** A 2xx JSON answer kept as the provider's bytes; bytes that are not JSON are a 502. */
export const readJson = (
  provider: string,
  response: UpstreamResponse,
  headers: GatewayResponse.ResponseHeaders
): Effect.Effect<GatewayResponse.JsonResponse, GatewayError.UpstreamUnreachable> =>
  Effect.flatMap(response.bytes, (raw) => {
    const answer = GatewayResponse.fromJsonBytes(raw, { status: 200, headers })
    return answer === undefined
      ? Effect.fail(
        new GatewayError.UpstreamUnreachable({
          provider,
          message: `answered ${response.status} with a body that is not valid JSON`
        })
      )
      : Effect.succeed(answer)
  })

export const isEventStream = (response: UpstreamResponse): boolean =>
  response.headers["content-type"]?.startsWith("text/event-stream") === true

/**
 * The `data:` payloads of an SSE answer, up to the `[DONE]` sentinel. A stream that breaks before
 * `[DONE]` ends with `UpstreamUnreachable`, so the client learns the answer is incomplete.
 */
export const readSseData = (
  provider: string,
  response: UpstreamResponse
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

/** The chunks of an OpenAI-format SSE answer, each a JSON object; anything else ends the stream. */
export const readJsonChunks = (
  provider: string,
  response: UpstreamResponse
): Stream.Stream<GatewayRequest.JsonObject, GatewayError.UpstreamUnreachable> =>
  readSseData(provider, response).pipe(
    Stream.mapEffect((data) => {
      const chunk = parseJsonObject(data)
      return chunk === undefined
        ? Effect.fail(
          new GatewayError.UpstreamUnreachable({
            provider,
            message: "the stream carried a chunk that is not a JSON object"
          })
        )
        : Effect.succeed(chunk)
    })
  )

/** The incoming headers the target's `forward_headers` names, added to the fixed ones. */
export const withForwarded = (
  target: ProviderTarget.ProviderTarget,
  base: Readonly<Record<string, string>>,
  incoming: Readonly<Record<string, string>>
): Readonly<Record<string, string>> => {
  if (target.forward_headers === undefined || target.forward_headers.length === 0) return base
  const headers = { ...base }
  for (const name of target.forward_headers) {
    const value = incoming[name.toLowerCase()]
    if (value !== undefined) headers[name.toLowerCase()] = value
  }
  return headers
}

/** A `custom_host` as a base URL without trailing slashes, or InvalidRequest. */
export const customBase = (customHost: string): Effect.Effect<string, GatewayError.InvalidRequest> => {
  const url = URL.parse(customHost)
  return url === null || (url.protocol !== "http:" && url.protocol !== "https:")
    ? Effect.fail(
      new GatewayError.InvalidRequest({
        message: `custom_host: must be an http or https URL (got "${customHost}")`,
        param: "custom_host"
      })
    )
    : Effect.succeed(customHost.replace(/\/+$/, ""))
}
