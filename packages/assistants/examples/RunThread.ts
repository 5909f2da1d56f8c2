import { Runs, RunSelection, ThreadStore } from "@switchyard/assistants"
import { ServerSecret } from "@switchyard/auth"
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
import { Database } from "@switchyard/storage"
import { Effect, Layer } from "effect"

// threads in SQLite (this process's alone), runs through a gateway over the app's provider adapters
const AssistantsLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>, sqliteFile: string) =>
  Runs.Runs.layerSoleProcess.pipe(
    Layer.provideMerge(ThreadStore.ThreadStore.layer),
    Layer.provideMerge(Gateway.Gateway.layer.pipe(
      Layer.provide(ProviderSelection.Selectors.layerHeaders),
      Layer.provide(
        ConfigCompiler.ConfigCompiler.layer().pipe(
          Layer.provide([Strategy.Strategies.layerSingle, ProviderRegistry.ProviderRegistry.layer(adapters)]),
          Layer.provide(Stage.Stages.layer)
        )
      )
    )),
    // seals the provider selection each thread keeps
    Layer.provideMerge(ServerSecret.ServerSecret.layerSecret("replace with 32 random bytes, kept secret")),
    Layer.provide(Database.layerSqlite(sqliteFile))
  )
const principal = Principal.make({ keyId: "docs", workspaceId: "default", scopes: ["assistants"] })
const askClaude = Effect.gen(function*() {
  const store = yield* ThreadStore.ThreadStore
  const assistant = yield* store.createAssistant(principal.workspaceId, {
    model: "claude-sonnet-4-5",
    instructions: "Answer in one sentence."
  })
  // the thread keeps this selection: each of its runs goes to Anthropic with this key
  const selection = yield* RunSelection.sealed({ "x-gateway-provider": "anthropic", authorization: "Bearer sk-ant" })
  const thread = yield* store.createThread(principal.workspaceId, {
    messages: [{ role: "user", content: "Why is the sky blue?" }]
  }, selection)
  const context = yield* RequestContext.inProcess({ principal })
  const runs = yield* Runs.Runs
  const queued = yield* runs.create({ context, threadId: thread.id, body: { assistant_id: assistant.id } })
  // the run works in the background; settled waits for it (an HTTP client polls GET …/runs/{id})
  const run = yield* runs.settled(principal.workspaceId, thread.id, queued.id)
  const answer = yield* store.listMessages(principal.workspaceId, thread.id, { limit: 1, order: "desc" })
  return { run, answer: answer.data[0] }
})
// const { run, answer } = await Effect.runPromise(askClaude.pipe(Effect.provide(AssistantsLive(adapters, "threads.db"))))
// README end

import type { ThreadMessage, ThreadRun } from "@switchyard/protocol"

/** The example, typed for the test. */
export const assistantsLive: (
  adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>,
  sqliteFile: string
) => Layer.Layer<Runs.Runs | ThreadStore.ThreadStore | ServerSecret.ServerSecret | Gateway.Gateway, unknown> =
  AssistantsLive
export const askedClaude: Effect.Effect<
  { readonly run: ThreadRun.ThreadRun; readonly answer: ThreadMessage.ThreadMessage | undefined },
  unknown,
  Runs.Runs | ThreadStore.ThreadStore | ServerSecret.ServerSecret
> = askClaude
