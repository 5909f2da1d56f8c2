import {
  ConfigCompiler,
  Gateway,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { Effect, Layer } from "effect"

const echo: ProviderRegistry.ProviderAdapter = { // a provider adapter: target -> Dispatch
  names: ["echo"],
  make: (target) =>
    Effect.succeed((request) =>
      Effect.succeed(GatewayResponse.json({ via: target.provider, model: request.body.model }))
    )
}
export const GatewayLive = Gateway.Gateway.layer.pipe(
  Layer.provide([ProviderSelection.Selectors.layerHeaders, ConfigCompiler.ConfigCompiler.layer()]),
  Layer.provide([ProviderRegistry.ProviderRegistry.layer([echo]), Strategy.Strategies.layerSingle, Stage.Stages.layer])
)
const principal = Principal.make({ keyId: "billing-service", workspaceId: "default", scopes: ["completions"] })
export const answer = Effect.gen(function*() {
  const context = yield* RequestContext.inProcess({ principal, headers: { "x-gateway-provider": "echo" } })
  const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
  return yield* (yield* Gateway.Gateway).handle({ endpoint: "chat.completions", body, context })
}).pipe(Effect.provide(GatewayLive))
// headers: { "x-gateway-provider": "echo", "x-gateway-last-used-option-index": "config" }; body(): { via: "echo", model: "gpt-4o-mini" }
