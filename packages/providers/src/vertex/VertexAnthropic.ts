/**
 * Anthropic's Claude models on Vertex AI. Documented rules relied on (cloud.google.com/vertex-ai/
 * generative-ai/docs/partner-models/claude): `POST …/publishers/anthropic/models/{model}:rawPredict`
 * (`:streamRawPredict` for server-sent events); the body is Anthropic's Messages body without
 * `model` (it is in the URL) and with `anthropic_version: "vertex-2023-10-16"`; answers, streams
 * and errors are Anthropic's own. The translation is the `anthropic` adapter's, and so is the
 * Messages body of a client that spoke the Messages API (NativeMessages).
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
import { Message, toChatCompletion } from "../anthropic/AnthropicResponse.ts"
import { toChunks } from "../anthropic/AnthropicStream.ts"
import * as MessageTokenCount from "../anthropic/MessageTokenCount.ts"
import * as NativeMessages from "../anthropic/NativeMessages.ts"
import type { GeminiEndpoint } from "../google/GeminiCall.ts"
import { ensureOk } from "../UpstreamCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"

export const ANTHROPIC_VERSION = "vertex-2023-10-16"

/** Claude model ids (`claude-sonnet-4@20250514`, …) are served by the anthropic publisher. */
export const isAnthropicModel = (model: unknown): boolean => typeof model === "string" && model.startsWith("claude")

const decodeMessage = Schema.decodeUnknownEffect(Schema.fromJsonString(Message))
const textDecoder = new TextDecoder()

export const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  endpoint: GeminiEndpoint
): Dispatch.Dispatch => {
  const provider = endpoint.provider
  const extras = target.strict_vendor_compliance === false
  return (request) =>
    Effect.gen(function*() {
      if (request.endpoint !== "chat.completions") {
        return yield* new GatewayError.InvalidRequest({
          message: `provider "${provider}" does not serve /v1${Endpoint.paths[request.endpoint]}`,
          param: "provider"
        })
      }
      const model = typeof request.body.model === "string" ? request.body.model : ""
      const mapped = yield* NativeMessages.requestOf(request)
      const body = Object.fromEntries(Object.entries(mapped.body).filter(([key]) => key !== "model"))
      const headers = yield* endpoint.headers
      const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const response = yield* client.post({
        provider,
        url: endpoint.url(model, request.stream),
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ ...body, anthropic_version: ANTHROPIC_VERSION })
      }).pipe(Effect.flatMap(ensureOk(provider)))
      if (request.stream) {
        return GatewayResponse.stream(
          toChunks(response, { provider, created, includeUsage: mapped.includeUsage, extras })
        )
      }
      const message = yield* decodeMessage(textDecoder.decode(yield* response.bytes)).pipe(
        Effect.mapError(() =>
          new GatewayError.UpstreamUnreachable({
            provider,
            message: "answered with a body that is not an Anthropic message"
          })
        )
      )
      return GatewayResponse.json(toChatCompletion(message, { created, extras }))
    })
}

/** Where Vertex AI counts a Claude request's tokens, and its bearer header. */
export interface CountEndpoint {
  readonly provider: string
  readonly url: string
  readonly headers: Effect.Effect<Readonly<Record<string, string>>, GatewayError.GatewayError>
}

/**
 * `POST …/publishers/anthropic/models/count-tokens:rawPredict` (cloud.google.com/vertex-ai/generative-ai/
 * docs/partner-models/claude/count-tokens): the Messages body with its `model` (the URL names no
 * model) and `anthropic_version`; it answers `{input_tokens}`. Gemini models have no count here.
 */
export const counter =
  (client: UpstreamClient["Service"], endpoint: CountEndpoint): ProviderRegistry.MessageTokenCounter => (request) => {
    if (!isAnthropicModel(request.body.model)) return Effect.succeed(Option.none())
    return Effect.gen(function*() {
      const headers = yield* endpoint.headers
      const beta = request.headers[MessageTokenCount.BETA_HEADER]
      const response = yield* client.post({
        provider: endpoint.provider,
        url: endpoint.url,
        headers: {
          ...headers,
          "content-type": "application/json",
          ...(beta === undefined ? {} : { [MessageTokenCount.BETA_HEADER]: beta })
        },
        body: JSON.stringify({ ...request.body, anthropic_version: ANTHROPIC_VERSION })
      })
      return Option.some(yield* MessageTokenCount.readAnthropicCount(endpoint.provider)(response))
    })
  }
