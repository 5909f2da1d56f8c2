import { ServerSecret } from "@switchyard/auth"
import { Batches, BatchQueue, BatchWorker } from "@switchyard/batches"
import {
  ConfigCompiler,
  Gateway,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  Stage,
  Strategy
} from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import { Database, Migrations } from "@switchyard/storage"
import { Effect, Layer, Stream } from "effect"

// batches and files in SQLite, lines run by a worker in this process through a gateway over the app's adapters
const BatchesLive = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>, sqliteFile: string) =>
  BatchWorker.layer({ concurrency: 4 }).pipe(
    Layer.provideMerge(Batches.Batches.layer),
    Layer.provideMerge(BatchQueue.layerSql({ pollInterval: "50 millis" })),
    Layer.provideMerge(FileStore.FileStore.layer.pipe(Layer.provide(FileContents.layerSql))),
    Layer.provideMerge(Gateway.Gateway.layer.pipe(
      Layer.provide(ProviderSelection.Selectors.layerHeaders),
      Layer.provide(
        ConfigCompiler.ConfigCompiler.layer().pipe(
          Layer.provide([Strategy.Strategies.layerSingle, ProviderRegistry.ProviderRegistry.layer(adapters)]),
          Layer.provide(Stage.Stages.layer)
        )
      )
    )),
    // seals the provider selection each batch keeps
    Layer.provideMerge(ServerSecret.ServerSecret.layerSecret("replace with 32 random bytes, kept secret")),
    Layer.provideMerge(Database.layerSqlite(sqliteFile))
  )
const workspace = Migrations.DEFAULT_WORKSPACE_ID
const principal = Principal.make({ keyId: "docs", workspaceId: workspace, scopes: ["batches", "files"] })
const questions = ["Why is the sky blue?", "Why is the sea salty?"].map((content, index) =>
  `${
    JSON.stringify({
      custom_id: `q${index + 1}`,
      method: "POST",
      url: "/v1/chat/completions",
      body: { model: "claude-sonnet-4-5", messages: [{ role: "user", content }] }
    })
  }\n`
)
const askClaudeTwice = Effect.gen(function*() {
  const files = yield* FileStore.FileStore
  const input = yield* files.create(workspace, {
    filename: "questions.jsonl",
    purpose: "batch",
    content: Stream.fromIterable(questions).pipe(Stream.encodeText)
  })
  const batches = yield* Batches.Batches
  // every line goes to Anthropic with this key, through the whole pipeline
  const created = yield* batches.create({
    principal,
    headers: { "x-gateway-provider": "anthropic", authorization: "Bearer sk-ant" },
    body: { input_file_id: input.id, endpoint: "/v1/chat/completions", completion_window: "immediate" }
  })
  // the worker runs the lines in the background; a client polls GET /v1/batches/{id}
  let batch = created
  while (!["completed", "failed", "cancelled", "expired"].includes(batch.status)) {
    yield* Effect.sleep("50 millis")
    batch = yield* batches.get(workspace, created.id)
  }
  const output = yield* files.content(workspace, batch.output_file_id ?? "")
  return { batch, output: yield* output.pipe(Stream.decodeText, Stream.mkString) }
})
// const { batch, output } = await Effect.runPromise(askClaudeTwice.pipe(Effect.provide(BatchesLive(adapters, "batches.db"))))
// README end

import type { Batch } from "@switchyard/protocol"

/** The example, typed for the test. */
export const batchesLive: (
  adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>,
  sqliteFile: string
) => Layer.Layer<Batches.Batches | FileStore.FileStore, unknown> = BatchesLive
export const askedClaudeTwice: Effect.Effect<
  { readonly batch: Batch.Batch; readonly output: string },
  unknown,
  Batches.Batches | FileStore.FileStore
> = askClaudeTwice
