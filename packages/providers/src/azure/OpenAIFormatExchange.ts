/**
 * The call both Azure adapters make: an OpenAI-format body posted to a URL, answered in OpenAI
 * format. JSON answers keep the provider's bytes; streams are read as SSE `data:` payloads.
 */
import { type Dispatch, GatewayError, GatewayRequest, GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { Effect, Stream } from "effect"
import { ensureOk, isEventStream, parseJsonObject, readJson, readSseData } from "../UpstreamCall.ts"
import type { UpstreamClient, UpstreamResponse } from "../UpstreamClient.ts"

export interface Exchange {
  readonly provider: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: GatewayRequest.JsonObject
  readonly stream: boolean
}

const responseHeaders = {}

/** Posts the body and reads the answer as a JSON body or a stream of chunks. */
export const exchange = (
  client: UpstreamClient["Service"],
  call: Exchange
): ReturnType<Dispatch.Dispatch> => {
  const posted = client.post({
    provider: call.provider,
    url: call.url,
    headers: call.stream ? { ...call.headers, accept: "text/event-stream" } : call.headers,
    body: JSON.stringify(call.body)
  }).pipe(Effect.flatMap(ensureOk(call.provider)))
  if (!call.stream) return Effect.flatMap(posted, (response) => readJson(response, responseHeaders))
  return Effect.flatMap(posted, (response) =>
    isEventStream(response)
      ? Effect.succeed(GatewayResponse.stream(readChunks(call.provider, response), { headers: responseHeaders }))
      : Effect.andThen(
        response.discard,
        Effect.fail(
          new GatewayError.UpstreamUnreachable({
            provider: call.provider,
            message: `answered a streamed request with ${response.headers["content-type"] ?? "no content type"}`
          })
        )
      ))
}

/**
 * Azure OpenAI opens a stream with a chunk that has no choices and carries only
 * `prompt_filter_results` (documented under "content filtering" for streaming); it is dropped so
 * the role chunk comes first. A chunk without choices but with `usage` is the usage chunk: kept.
 */
const isFilterOnly = (chunk: GatewayRequest.JsonObject): boolean =>
  Array.isArray(chunk.choices) && chunk.choices.length === 0 &&
  (chunk.usage === undefined || chunk.usage === null)

const readChunks = (provider: string, response: UpstreamResponse) =>
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
    }),
    Stream.filter((chunk) => !isFilterOnly(chunk))
  )

/** The body without `model`: Azure picks the model from the deployment, not from the body. */
export const withoutModel = (body: GatewayRequest.JsonObject): GatewayRequest.JsonObject => {
  const copy: Record<string, unknown> = { ...body }
  delete copy.model
  return copy
}

/** `Bearer …` from the target's `Authorization` field, whether or not it already says Bearer. */
export const bearer = (authorization: string): string =>
  /^bearer\s+/i.test(authorization) ? authorization : `Bearer ${authorization}`

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

/** A DNS label: what Azure allows in resource and endpoint names, so no name can reshape the URL. */
export const isHostLabel = (name: string): boolean => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(name)

export const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })
