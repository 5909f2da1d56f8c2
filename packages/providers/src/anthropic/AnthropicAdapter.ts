/**
 * The `anthropic` provider: OpenAI-format chat completions over Anthropic's Messages API
 * (`POST {base}/v1/messages` with `x-api-key` and `anthropic-version: 2023-06-01`, per
 * docs.anthropic.com, "Messages" reference and "Versions"). Requests, answers, streams and errors
 * are translated (a client that spoke the Messages API is sent its own body, see NativeMessages);
 * Anthropic's error bodies (`{ type: "error", error: { type, message } }`) keep
 * their status, type and message.
 *
 * @example
 * ```ts
 * import { AnthropicAdapter, UpstreamClient } from "@switchyard/providers"
 * import { Effect } from "effect"
 *
 * const dispatch = Effect.flatMap(UpstreamClient.UpstreamClient, (client) =>
 *   AnthropicAdapter.make(client).make({ provider: "anthropic", api_key: "sk-ant-…" }))
 * ```
 */
import {
  type Dispatch,
  Endpoint,
  GatewayError,
  GatewayResponse,
  type ProviderRegistry,
  type ProviderTarget
} from "@switchyard/core"
import { Clock, Effect, Option, Schema } from "effect"
import { ensureOk, isEventStream, withForwarded } from "../UpstreamCall.ts"
import type { UpstreamClient, UpstreamResponse } from "../UpstreamClient.ts"
import { Message, toChatCompletion } from "./AnthropicResponse.ts"
import { toChunks } from "./AnthropicStream.ts"
import * as MessageTokenCount from "./MessageTokenCount.ts"
import * as NativeMessages from "./NativeMessages.ts"

// the translation alone, for hosts that serve Anthropic models under their own URL and auth (Vertex AI)
export { defaultMaxTokens, type MappedRequest, toAnthropicRequest } from "./AnthropicRequest.ts"
export { Message, toChatCompletion } from "./AnthropicResponse.ts"
export { type StreamOptions, toChunks } from "./AnthropicStream.ts"

export const baseUrl = "https://api.anthropic.com"
export const anthropicVersion = "2023-06-01"

const provider = "anthropic"

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: [provider],
  make: (target) =>
    Effect.map(
      Effect.all([messagesUrlOf(target), apiKeyOf(target)]),
      ([url, apiKey]) => dispatch(client, target, url, apiKey)
    ),
  countMessageTokens: (target) =>
    Effect.map(
      Effect.all([messagesUrlOf(target), apiKeyOf(target)]),
      ([url, apiKey]) => counter(client, target, `${url}/count_tokens`, apiKey)
    )
})

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

const apiKeyOf = (target: ProviderTarget.ProviderTarget) =>
  target.api_key === undefined || target.api_key === ""
    ? Effect.fail(invalid("api_key: provider \"anthropic\" needs an api_key", "api_key"))
    : Effect.succeed(target.api_key)

/** `custom_host` replaces the base URL; one that already ends in `/v1` is not given a second. */
const messagesUrlOf = (target: ProviderTarget.ProviderTarget): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.custom_host === undefined) return Effect.succeed(`${baseUrl}/v1/messages`)
  const url = URL.parse(target.custom_host)
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return Effect.fail(
      invalid(`custom_host: must be an http or https URL (got "${target.custom_host}")`, "custom_host")
    )
  }
  const base = target.custom_host.replace(/\/+$/, "")
  return Effect.succeed(base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`)
}

const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  url: string,
  apiKey: string
): Dispatch.Dispatch => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": apiKey,
    "anthropic-version": anthropicVersion
  }
  const extras = target.strict_vendor_compliance === false
  return (request) =>
    Effect.gen(function*() {
      if (request.endpoint !== "chat.completions") {
        return yield* invalid(
          `provider "anthropic" does not serve /v1${Endpoint.paths[request.endpoint]}`,
          "provider"
        )
      }
      const mapped = yield* NativeMessages.requestOf(request)
      const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const sent = { ...withForwarded(target, headers, request.context.headers), ...mapped.headers }
      if (request.stream) sent.accept = "text/event-stream"
      const response = yield* client.post({ provider, url, headers: sent, body: JSON.stringify(mapped.body) }).pipe(
        Effect.flatMap(ensureOk(provider))
      )
      return request.stream
        ? yield* streamed(response, { provider, created, includeUsage: mapped.includeUsage, extras })
        : yield* completed(response, { created, extras })
    })
}

/** `POST {base}/v1/messages/count_tokens` (docs.anthropic.com, "Count Message tokens"): the body as the client sent it. */
const counter = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  url: string,
  apiKey: string
): ProviderRegistry.MessageTokenCounter => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": apiKey,
    "anthropic-version": anthropicVersion
  }
  return (request) => {
    const beta = request.headers[MessageTokenCount.BETA_HEADER]
    const sent = {
      ...withForwarded(target, headers, request.headers),
      ...(beta === undefined ? {} : { [MessageTokenCount.BETA_HEADER]: beta })
    }
    return client.post({ provider, url, headers: sent, body: JSON.stringify(request.body) }).pipe(
      Effect.flatMap(MessageTokenCount.readAnthropicCount(provider)),
      Effect.map(Option.some)
    )
  }
}

const decodeMessage = Schema.decodeUnknownEffect(Schema.fromJsonString(Message))
const textDecoder = new TextDecoder()

const unreadable = (message: string) => new GatewayError.UpstreamUnreachable({ provider, message })

const completed = (response: UpstreamResponse, identity: { readonly created: number; readonly extras: boolean }) =>
  Effect.gen(function*() {
    const text = textDecoder.decode(yield* response.bytes)
    const message = yield* decodeMessage(text).pipe(
      Effect.mapError(() => unreadable("answered with a body that is not an Anthropic message"))
    )
    return GatewayResponse.json(toChatCompletion(message, identity))
  })

const streamed = (response: UpstreamResponse, options: Parameters<typeof toChunks>[1]) =>
  isEventStream(response)
    ? Effect.succeed(GatewayResponse.stream(toChunks(response, options)))
    : Effect.andThen(
      response.discard,
      Effect.fail(
        unreadable(`answered a streamed request with ${response.headers["content-type"] ?? "no content type"}`)
      )
    )
