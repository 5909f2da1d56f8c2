/**
 * The Dispatch shared by the Gemini API and Vertex AI: both take the same `GenerateContentRequest`
 * and answer the same `GenerateContentResponse`; they differ only in URL and credentials.
 */
import { type Dispatch, Endpoint, GatewayError, GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { ChatRequestView } from "@switchyard/protocol"
import { Clock, Effect, Random, Schema } from "effect"
import { ensureOk } from "../UpstreamCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"
import { toGeminiRequest } from "./GeminiRequest.ts"
import { GenerateContentResponse, type Identity, toChatCompletion } from "./GeminiResponse.ts"
import { toChunks } from "./GeminiStream.ts"

export interface GeminiEndpoint {
  /** Short provider name, for errors. */
  readonly provider: string
  /** The URL of `:generateContent`, or of `:streamGenerateContent?alt=sse` when `stream`. */
  readonly url: (model: string, stream: boolean) => string
  /** The request's headers; Vertex AI computes its bearer token here. */
  readonly headers: Effect.Effect<Readonly<Record<string, string>>, GatewayError.GatewayError>
}

const decodeResponse = Schema.decodeUnknownEffect(Schema.fromJsonString(GenerateContentResponse))
const textDecoder = new TextDecoder()

/** Gemini's model names are path segments; `models/x` is accepted as `x`. */
export const modelSegment = (model: string): string => encodeURIComponent(model.replace(/^models\//, ""))

/** The OpenAI-format chat completions Dispatch over one Gemini-compatible endpoint. */
export const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  endpoint: GeminiEndpoint
): Dispatch.Dispatch => {
  const name = endpoint.provider
  return (request) =>
    Effect.gen(function*() {
      if (request.endpoint !== "chat.completions") {
        return yield* new GatewayError.InvalidRequest({
          message: `provider "${name}" does not serve /v1${Endpoint.paths[request.endpoint]}`,
          param: "provider"
        })
      }
      const body = yield* Effect.fromResult(ChatRequestView.decode(request.body)).pipe(
        Effect.mapError((error) =>
          new GatewayError.InvalidRequest({ message: `invalid chat request: ${error.message}`, param: error.param })
        )
      )
      const native = yield* toGeminiRequest(body, name)
      const headers = yield* endpoint.headers
      const response = yield* client.post({
        provider: name,
        url: endpoint.url(body.model, request.stream),
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(native)
      }).pipe(Effect.flatMap(ensureOk(name)))
      const identity = yield* identityOf(body.model, target)
      if (request.stream) {
        const includeUsage = body.stream_options?.include_usage === true
        return GatewayResponse.stream(toChunks(name, response, identity, includeUsage))
      }
      const bytes = yield* response.bytes
      const decoded = yield* decodeResponse(textDecoder.decode(bytes)).pipe(
        Effect.mapError(() =>
          new GatewayError.UpstreamUnreachable({ provider: name, message: "answered with a body that is not JSON" })
        )
      )
      return GatewayResponse.json(toChatCompletion(decoded, identity))
    })
}

/** Ids come from the Random service and `created` from the Clock, so tests control both. */
const identityOf = (model: string, target: ProviderTarget.ProviderTarget): Effect.Effect<Identity> =>
  Effect.gen(function*() {
    const seed = (yield* Random.nextIntBetween(0, 2 ** 48)).toString(36)
    const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    return {
      id: `chatcmpl-${seed}`,
      created,
      model,
      reasoning: target.strict_vendor_compliance === false,
      callId: (n) => `call_${seed}_${n}`
    }
  })
