/**
 * The OpenAI-format family: the vendor itself, any `custom_host`, and every provider of
 * {@link openAICompatibleProviders}. The body is already in the provider's format, so it is
 * forwarded as it is and the answer's bytes are passed back untouched.
 */
import {
  type Dispatch,
  Endpoint,
  GatewayError,
  GatewayRequest,
  GatewayResponse,
  type ProviderRegistry,
  type ProviderTarget
} from "@switchyard/core"
import { Effect } from "effect"
import * as InternalChatMembers from "../internal/InternalChatMembers.ts"
import * as MessagesOnOpenAI from "../internal/MessagesOnOpenAI.ts"
import { customBase, ensureOk, isEventStream, readJson, readJsonChunks, withForwarded } from "../UpstreamCall.ts"
import type { UpstreamClient } from "../UpstreamClient.ts"
import * as NativeResponses from "./NativeResponses.ts"
import { type OpenAICompatibleProvider, openAICompatibleProviders } from "./OpenAICompatibleProviders.ts"

export const make = (client: UpstreamClient["Service"]): ProviderRegistry.ProviderAdapter => ({
  names: Object.keys(openAICompatibleProviders),
  make: (target) => {
    const provider = openAICompatibleProviders[target.provider]
    if (provider === undefined) {
      return Effect.fail(invalid(`provider: "${target.provider}" is not an OpenAI-format provider`, "provider"))
    }
    return Effect.map(baseUrlOf(target, provider), (baseUrl) => dispatch(client, target, provider, baseUrl))
  }
})

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

const baseUrlOf = (
  target: ProviderTarget.ProviderTarget,
  provider: OpenAICompatibleProvider
): Effect.Effect<string, GatewayError.InvalidRequest> => {
  if (target.custom_host === undefined) {
    return provider.requiresApiKey && target.api_key === undefined
      ? Effect.fail(invalid(`api_key: provider "${target.provider}" needs an api_key`, "api_key"))
      : Effect.succeed(provider.baseUrl)
  }
  return customBase(target.custom_host)
}

/** Headers that depend only on the target: computed once per compiled target. */
const staticHeaders = (target: ProviderTarget.ProviderTarget): Record<string, string> => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  if (target.api_key !== undefined) headers.authorization = `Bearer ${target.api_key}`
  if (target.vendor_organization !== undefined) headers["openai-organization"] = target.vendor_organization
  if (target.vendor_project !== undefined) headers["openai-project"] = target.vendor_project
  return headers
}

const dispatch = (
  client: UpstreamClient["Service"],
  target: ProviderTarget.ProviderTarget,
  provider: OpenAICompatibleProvider,
  baseUrl: string
): Dispatch.Dispatch => {
  const name = target.provider
  const fixedHeaders = staticHeaders(target)
  const responseHeaders = {}
  // OpenAI itself serves the Responses API: a client that spoke it is answered from there
  const servesResponses = name === "openai"
  // OpenAI refuses members it does not know; the compatible providers take their own extras
  const strict = name === "openai"
  return (request) => {
    const native = servesResponses ? GatewayRequest.nativeFor(request, "responses") : undefined
    if (native !== undefined) {
      return NativeResponses.exchange(client, {
        provider: name,
        url: `${baseUrl}/responses`,
        headers: withForwarded(target, fixedHeaders, request.context.headers),
        body: NativeResponses.bodyOf(native, request),
        stream: request.stream
      })
    }
    if (!provider.endpoints.includes(request.endpoint)) {
      return Effect.fail(
        invalid(`provider "${name}" does not serve /v1${Endpoint.paths[request.endpoint]}`, "provider")
      )
    }
    const headers = withForwarded(target, fixedHeaders, request.context.headers)
    const call = client.post({
      provider: name,
      url: baseUrl + Endpoint.paths[request.endpoint],
      headers: request.stream ? { ...headers, accept: "text/event-stream" } : headers,
      body: JSON.stringify(InternalChatMembers.forOpenAIFormat(MessagesOnOpenAI.fitToModel(request, name), strict))
    }).pipe(Effect.flatMap(ensureOk(name)))
    return request.stream
      ? Effect.flatMap(call, (response) =>
        isEventStream(response)
          ? Effect.succeed(GatewayResponse.stream(readJsonChunks(name, response), { headers: responseHeaders }))
          : Effect.andThen(
            response.discard,
            Effect.fail(
              new GatewayError.UpstreamUnreachable({
                provider: name,
                message: `answered a streamed request with ${response.headers["content-type"] ?? "no content type"}`
              })
            )
          ))
      : Effect.flatMap(call, (response) => readJson(name, response, responseHeaders))
  }
}
