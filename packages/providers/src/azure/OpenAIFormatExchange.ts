/**
 * The call both Azure adapters make: an OpenAI-format body posted to a URL, answered in OpenAI
 * format. JSON answers keep the provider's bytes; streams are read as SSE `data:` payloads.
 */
import { type Dispatch, GatewayError, GatewayRequest, GatewayResponse } from "@switchyard/core"
import { Effect, Stream } from "effect"
import { ensureOk, isEventStream, readJson, readJsonChunks } from "../UpstreamCall.ts"
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
  if (!call.stream) return Effect.flatMap(posted, (response) => readJson(call.provider, response, responseHeaders))
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
  readJsonChunks(provider, response).pipe(Stream.filter((chunk) => !isFilterOnly(chunk)))

/** The body without `model`: Azure picks the model from the deployment, not from the body. */
export const withoutModel = (body: GatewayRequest.JsonObject): GatewayRequest.JsonObject => {
  const copy: Record<string, unknown> = { ...body }
  delete copy.model
  return copy
}

/** `Bearer …` from the target's `Authorization` field, whether or not it already says Bearer. */
export const bearer = (authorization: string): string =>
  /^bearer\s+/i.test(authorization) ? authorization : `Bearer ${authorization}`

/** A DNS label: what Azure allows in resource and endpoint names, so no name can reshape the URL. */
export const isHostLabel = (name: string): boolean => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(name)

export const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })
