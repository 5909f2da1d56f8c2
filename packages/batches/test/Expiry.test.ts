import { assert, describe, it } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import { Batches, BatchQueue } from "@switchyard/batches"
import {
  ConfigCompiler,
  Gateway,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  Stage,
  Strategy
} from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import { Database, Migrations } from "@switchyard/storage"
import { Effect, Layer, Stream } from "effect"
import { PersistedQueue } from "effect/persistence"
import { TestClock } from "effect/testing"

const adapter: ProviderRegistry.ProviderAdapter = {
  names: ["openai"],
  make: () =>
    Effect.succeed(() =>
      Effect.succeed(GatewayResponse.json({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }]
      }))
    )
}

/** No worker: the test does each job itself, with the test clock in charge of the window. */
const live = Batches.Batches.layer.pipe(
  Layer.provideMerge(BatchQueue.layer.pipe(Layer.provide(PersistedQueue.layerStoreMemory))),
  Layer.provideMerge(FileStore.FileStore.layer.pipe(Layer.provide(FileContents.layerSql))),
  Layer.provideMerge(Gateway.Gateway.layer.pipe(
    Layer.provide(ProviderSelection.Selectors.layerHeaders),
    Layer.provide(
      ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([Strategy.Strategies.layerSingle, ProviderRegistry.ProviderRegistry.layer([adapter])]),
        Layer.provide(Stage.Stages.layer)
      )
    )
  )),
  Layer.provideMerge(ServerSecret.ServerSecret.layerSecret("a test secret of enough length, 32+ chars")),
  Layer.provideMerge(Database.layerSqlite(":memory:"))
)

const WS = Migrations.DEFAULT_WORKSPACE_ID
const line = (customId: string) =>
  JSON.stringify({
    custom_id: customId,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: customId }] }
  })

const createBatch = (window: "24h" | "immediate") =>
  Effect.gen(function*() {
    const file = yield* FileStore.FileStore.use((files) =>
      files.create(WS, {
        filename: "in.jsonl",
        purpose: "batch",
        content: Stream.make(new TextEncoder().encode(`${line("first")}\n${line("second")}\n`))
      })
    )
    return yield* Batches.Batches.use((batches) =>
      batches.create({
        principal: Principal.make({ keyId: "test", workspaceId: WS, scopes: ["batches"] }),
        headers: { "x-gateway-provider": "openai", authorization: "Bearer sk" },
        body: { input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: window }
      })
    )
  })

const work = (job: BatchQueue.Job) => Batches.Batches.use((batches) => batches.work(job, 1))
const get = (id: string) => Batches.Batches.use((batches) => batches.get(WS, id))
const errorLines = (fileId: string | null | undefined) =>
  FileStore.FileStore.use((files) => files.content(WS, fileId ?? "")).pipe(
    Effect.flatMap((content) => content.pipe(Stream.decodeText, Stream.mkString)),
    Effect.map((text) => text.trim().split("\n").map((entry) => JSON.parse(entry)))
  )

describe("the 24h window", () => {
  it.effect("a 24h batch past its window ends expired, keeping what finished and failing the rest", () =>
    Effect.gen(function*() {
      const created = yield* createBatch("24h")
      assert.strictEqual(created.expires_at, 86_400)
      yield* work({ kind: "validate", batchId: created.id })
      yield* work({ kind: "line", batchId: created.id, line: 1 })
      assert.deepStrictEqual((yield* get(created.id)).request_counts, { total: 2, completed: 1, failed: 0 })
      yield* TestClock.adjust("24 hours")
      // the second line is taken after the window: it is not run, and the batch is finalized
      yield* work({ kind: "line", batchId: created.id, line: 2 })
      yield* work({ kind: "finalize", batchId: created.id })
      const batch = yield* get(created.id)
      assert.deepStrictEqual([batch.status, batch.expired_at, batch.request_counts], ["expired", 86_400, {
        total: 2,
        completed: 1,
        failed: 1
      }])
      const [expired] = yield* errorLines(batch.error_file_id)
      assert.deepStrictEqual([expired.custom_id, expired.error.code], ["second", "batch_expired"])
      assert.isString(batch.output_file_id)
    }).pipe(Effect.provide(live)))

  it.effect("an immediate batch has no window", () =>
    Effect.gen(function*() {
      const created = yield* createBatch("immediate")
      assert.strictEqual(created.expires_at, null)
      yield* work({ kind: "validate", batchId: created.id })
      yield* TestClock.adjust("48 hours")
      yield* work({ kind: "line", batchId: created.id, line: 1 })
      yield* work({ kind: "line", batchId: created.id, line: 2 })
      yield* work({ kind: "finalize", batchId: created.id })
      const batch = yield* get(created.id)
      assert.deepStrictEqual([batch.status, batch.request_counts], ["completed", { total: 2, completed: 2, failed: 0 }])
    }).pipe(Effect.provide(live)))
})
