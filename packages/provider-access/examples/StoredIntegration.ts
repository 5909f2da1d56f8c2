import {
  ConfigCompiler,
  Gateway,
  Principal,
  type ProviderRegistry,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { Integrations, ProviderAccess } from "@switchyard/provider-access"
import { Effect, Layer } from "effect"

// stored provider access over the app's adapters; needs SqlClient and ServerSecret (@switchyard/storage, /auth)
const GatewayLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide([ProviderAccess.layerSelectors, ConfigCompiler.ConfigCompiler.layer()]),
    Layer.provide([Strategy.Strategies.layerSingle, Stage.Stages.layer]),
    Layer.provideMerge(ProviderAccess.layer(adapters)) // the registry with `@`; Integrations, VirtualKeys, StoredConfigs
  )
const principal = Principal.make({ keyId: "billing-service", workspaceId: "team-a", scopes: ["completions"] })
// the team's key is stored once, sealed; a request names it as @team-openai and never holds it
const viaIntegration = Effect.gen(function*() {
  const integrations = yield* Integrations.Integrations
  yield* integrations.create(principal.workspaceId, { slug: "team-openai", provider: "openai", api_key: "sk-123" })
  const context = yield* RequestContext.inProcess({ principal, headers: { "x-gateway-provider": "@team-openai" } })
  const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
  return yield* (yield* Gateway.Gateway).handle({ endpoint: "chat.completions", body, context })
})
// README end

import type { ServerSecret } from "@switchyard/auth"
import type { GatewayError, GatewayResponse } from "@switchyard/core"
import type { SqlClient } from "effect/sql"

/** The example, typed for the test. */
export const layer: (
  adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>
) => Layer.Layer<Gateway.Gateway | Integrations.Integrations, never, SqlClient.SqlClient | ServerSecret.ServerSecret> =
  GatewayLive
export const call: Effect.Effect<
  GatewayResponse.GatewayResponse,
  GatewayError.GatewayError,
  Gateway.Gateway | Integrations.Integrations
> = viaIntegration
