import { Principal, ProviderRegistry, RequestContext } from "@switchyard/core"
import { Providers, UpstreamClient } from "@switchyard/providers"
import { Effect, Layer, Stream } from "effect"

const ProvidersLive = Providers.layer.pipe(Layer.provide(UpstreamClient.UpstreamClient.layer()))
const principal = Principal.make({ keyId: "docs", workspaceId: "default", scopes: ["completions"] })
// customHost: where groq is reached instead of https://api.groq.com/openai/v1 (a proxy; a fake in the tests)
const streamChat = (customHost: string) =>
  Effect.gen(function*() {
    const dispatch = yield* ProviderRegistry.dispatchFor({
      provider: "groq",
      api_key: "gsk-123",
      custom_host: customHost
    })
    const context = yield* RequestContext.inProcess({ principal })
    const body = { model: "llama-3.3-70b-versatile", messages: [{ role: "user", content: "Hi" }], stream: true }
    const response = yield* dispatch({ endpoint: "chat.completions", body, stream: true, context })
    return response._tag === "Stream" ? yield* Stream.runCollect(response.chunks) : [] // OpenAI-format chunks
  }).pipe(Effect.provide(ProvidersLive))
// README end

import type { GatewayError, GatewayRequest } from "@switchyard/core"

/** The example, typed for the test. */
export const chunksFrom: (
  customHost: string
) => Effect.Effect<ReadonlyArray<GatewayRequest.JsonObject>, GatewayError.GatewayError> = streamChat
