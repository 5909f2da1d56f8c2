import {
  ConfigCompiler,
  Gateway,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { PromptRun, PromptStage, PromptStore } from "@switchyard/prompts"
import { Database } from "@switchyard/storage"
import { Effect, Layer } from "effect"

// a gateway that runs prompts: the store in SQLite, the prompt stage, the app's provider adapters
const PromptsLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>, sqliteFile: string) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide(ProviderSelection.Selectors.layerHeaders),
    Layer.provide(
      ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([PromptStage.layer, Strategy.Strategies.layerSingle]),
        // one set of stages and one registry, for the compiler and the prompt stage
        Layer.provide([Stage.Stages.layer, ProviderRegistry.ProviderRegistry.layer(adapters)])
      )
    ),
    Layer.provideMerge(PromptStore.PromptStore.layer),
    Layer.provide(Database.layerSqlite(sqliteFile))
  )
const principal = Principal.make({ keyId: "docs", workspaceId: "default", scopes: ["completions"] })
const greet = Effect.gen(function*() {
  const prompt = yield* (yield* PromptStore.PromptStore).create(principal.workspaceId, {
    name: "greeting",
    model: "gpt-4o-mini",
    provider: "openai", // its key comes from the caller's Authorization header
    template: [{ role: "system", content: "Answer as {{persona}}." }, {
      role: "user",
      content: "Greet {{user.name}}."
    }],
    parameters: { temperature: 0.2 }
  })
  const context = yield* RequestContext.inProcess({ principal, headers: { authorization: "Bearer sk-123" } })
  // the published version, rendered and run as a chat completion; temperature overrides the saved 0.2
  const run = { variables: { persona: "a pirate", user: { name: "Ada" } }, temperature: 0.7 }
  return yield* PromptRun.complete({ reference: prompt.id, run, context })
})
// const answer = await Effect.runPromise(greet.pipe(Effect.provide(PromptsLive(Providers.adapters(client), "prompts.db"))))
// README end

import type { GatewayError, GatewayResponse } from "@switchyard/core"

/** The example, typed for the test. */
export const promptsLive: (
  adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>,
  sqliteFile: string
) => Layer.Layer<Gateway.Gateway | PromptStore.PromptStore, unknown> = PromptsLive
export const greeting: Effect.Effect<
  GatewayResponse.GatewayResponse,
  GatewayError.GatewayError,
  PromptStore.PromptStore | Gateway.Gateway
> = greet
