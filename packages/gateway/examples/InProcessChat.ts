import { Gateway, Principal, RequestContext } from "@switchyard/core"
import { Pipeline } from "@switchyard/gateway"
import { Effect, ManagedRuntime } from "effect"

// the whole pipeline, built once for the service's life (SQLite under dataDir); dispose() it at shutdown
const gatewayRuntime = (dataDir: string) => ManagedRuntime.make(Pipeline.layer({ dataDir }))
const principal = Principal.make({ keyId: "billing-service", workspaceId: "default", scopes: ["completions"] })
// hosts: where openai and groq are reached (a proxy; fakes on 127.0.0.1 in the tests)
const chat = (hosts: { readonly openai: string; readonly groq: string }) => {
  const config = {
    strategy: { mode: "fallback" },
    retry: { attempts: 2 },
    cb_config: { failure_threshold: 3, cooldown_interval: 60_000 },
    targets: [
      { provider: "openai", api_key: "sk-123", custom_host: hosts.openai },
      { provider: "groq", api_key: "gsk-123", custom_host: hosts.groq }
    ]
  }
  return Effect.gen(function*() {
    const context = yield* RequestContext.inProcess({
      principal,
      headers: { "x-gateway-config": JSON.stringify(config) }
    })
    const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
    return yield* (yield* Gateway.Gateway).handle({ endpoint: "chat.completions", body, context })
  })
}
// const gateway = gatewayRuntime("./.switchyard"); const answer = await gateway.runPromise(chat(hosts))
// README end

import type { GatewayError, GatewayResponse } from "@switchyard/core"

/** The example, typed for the test. */
export const runtimeFor: (dataDir: string) => ManagedRuntime.ManagedRuntime<Pipeline.Services, Pipeline.StartupError> =
  gatewayRuntime
export const chatThrough: (
  hosts: { readonly openai: string; readonly groq: string }
) => Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError, Gateway.Gateway> = chat
