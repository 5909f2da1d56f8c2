import { assert, describe, it, layer } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import { Batches, BatchQueue, BatchWorker } from "@switchyard/batches"
import {
  ConfigCompiler,
  Gateway,
  GatewayError,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  Stage,
  Strategy
} from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import type { Batch } from "@switchyard/protocol"
import { Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Stream } from "effect"

/**
 * An OpenAI stand-in: answers the request's last message back; `model` `rate-limited` answers 429
 * the first `limitedTimes` times, `broken` always 500. Counts calls per custom content.
 */
const calls = new Map<string, number>()
let limitedTimes = 0
/** Calls of model `tracked` running right now, and the most there were at once. */
const tracked = { now: 0, most: 0 }
const adapter: ProviderRegistry.ProviderAdapter = {
  names: ["openai"],
  make: () =>
    Effect.succeed((request) =>
      Effect.suspend(() => {
        const body = request.body
        const messages = Array.isArray(body.messages) ? body.messages : []
        const last: unknown = messages.at(-1)
        const content = typeof last === "object" && last !== null && "content" in last ? String(last.content) : ""
        calls.set(content, (calls.get(content) ?? 0) + 1)
        if (body.model === "tracked") {
          tracked.now += 1
          tracked.most = Math.max(tracked.most, tracked.now)
          return Effect.sleep("30 millis").pipe(
            Effect.ensuring(Effect.sync(() => {
              tracked.now -= 1
            })),
            Effect.as(GatewayResponse.json({
              id: "chatcmpl-1",
              object: "chat.completion",
              created: 1,
              model: "tracked",
              choices: [{ index: 0, message: { role: "assistant", content: content }, finish_reason: "stop" }]
            }))
          )
        }
        if (body.model === "broken") {
          return Effect.fail(
            new GatewayError.UpstreamStatus({ provider: "openai", status: 500, body: { error: "boom" }, headers: {} })
          )
        }
        if (body.model === "rate-limited" && (calls.get(content) ?? 0) <= limitedTimes) {
          return Effect.fail(
            new GatewayError.UpstreamStatus({
              provider: "openai",
              status: 429,
              body: { error: { message: "slow down" } },
              headers: { "retry-after": "1" }
            })
          )
        }
        return Effect.succeed(GatewayResponse.json({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 1,
          model: String(body.model),
          choices: [{ index: 0, message: { role: "assistant", content: `echo ${content}` }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
        }))
      })
    )
}

const gateway = Gateway.Gateway.layer.pipe(
  Layer.provide(ProviderSelection.Selectors.layerHeaders),
  Layer.provide(
    ConfigCompiler.ConfigCompiler.layer().pipe(
      Layer.provide([Strategy.Strategies.layerSingle, ProviderRegistry.ProviderRegistry.layer([adapter])]),
      Layer.provide(Stage.Stages.layer)
    )
  )
)

const WS = Migrations.DEFAULT_WORKSPACE_ID
const principal = Principal.make({ keyId: "test", workspaceId: WS, scopes: ["batches", "files"] })
const selection = { "x-gateway-provider": "openai", authorization: "Bearer sk-test" }

const chatLine = (customId: string, content: string, model = "gpt-4o-mini") =>
  JSON.stringify({
    custom_id: customId,
    method: "POST",
    url: "/v1/chat/completions",
    body: { model, messages: [{ role: "user", content }] }
  })

const upload = (lines: ReadonlyArray<string>) =>
  FileStore.FileStore.use((files) =>
    files.create(WS, {
      filename: "input.jsonl",
      purpose: "batch",
      content: Stream.make(new TextEncoder().encode(`${lines.join("\n")}\n`))
    })
  )

const create = (lines: ReadonlyArray<string>, headers: Record<string, string> = selection) =>
  Effect.gen(function*() {
    const file = yield* upload(lines)
    return yield* Batches.Batches.use((batches) =>
      batches.create({
        principal,
        headers,
        body: { input_file_id: file.id, endpoint: "/v1/chat/completions", completion_window: "immediate" }
      })
    )
  })

const ENDED = ["completed", "failed", "cancelled", "expired"]

/** Polls the batch until it has ended, as a client would. */
const settled = (id: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 400; attempt++) {
      const batch = yield* Batches.Batches.use((batches) => batches.get(WS, id))
      if (ENDED.includes(batch.status)) return batch
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.die(new Error(`batch ${id} did not end`))
  })

const linesOf = (fileId: string | null | undefined) =>
  fileId === null || fileId === undefined
    ? Effect.succeed([])
    : FileStore.FileStore.use((files) => files.content(WS, fileId)).pipe(
      Effect.flatMap((content) => content.pipe(Stream.decodeText, Stream.mkString)),
      Effect.map((text) => text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line)))
    )

/** One worker process's own stack (its queue, batches and takers) over a database shared with others. */
const workerStack = (options: { maxLinesInFlight?: number; maxLinesPerTarget?: number; concurrency?: number }) =>
  BatchWorker.layer({ concurrency: options.concurrency ?? 4 }).pipe(
    Layer.provideMerge(Batches.Batches.layerWith(options)),
    Layer.provideMerge(BatchQueue.layerSql({ pollInterval: "20 millis" })),
    Layer.provideMerge(FileStore.FileStore.layer.pipe(Layer.provide(FileContents.layerSql))),
    Layer.provideMerge(gateway),
    Layer.provideMerge(ServerSecret.ServerSecret.layerSecret("a test secret of enough length, 32+ chars"))
  )

const live = (
  database: (typeof TestDatabase.dialects)[number]["layer"],
  maxLinesInFlight?: number,
  options: { maxLinesPerTarget?: number; concurrency?: number } = {}
) =>
  workerStack({ ...options, ...(maxLinesInFlight === undefined ? {} : { maxLinesInFlight }) }).pipe(
    Layer.provideMerge(database)
  )

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(live(database), { excludeTestServices: true })(`Batches on ${name}`, (it) => {
    it.effect("runs every valid line and records each invalid one with its line, then completes with both files", () =>
      Effect.gen(function*() {
        const created = yield* create([
          chatLine("a", "one"),
          "not json",
          chatLine("b", "two"),
          chatLine("a", "again"),
          JSON.stringify({ custom_id: "c", method: "POST", url: "/v1/embeddings", body: {} }),
          JSON.stringify({ custom_id: "d", method: "POST", url: "/v1/chat/completions", body: { messages: [] } }),
          chatLine("e", "broken", "broken")
        ])
        assert.strictEqual(created.status, "validating")
        const batch = yield* settled(created.id)
        assert.strictEqual(batch.status, "completed")
        assert.deepStrictEqual(batch.request_counts, { total: 7, completed: 2, failed: 5 })
        assert.deepStrictEqual(batch.errors?.data.map((error) => [error.line, error.code, error.param]), [
          [2, "invalid_json_line", null],
          [4, "duplicate_custom_id", "custom_id"],
          [5, "invalid_url", "url"],
          [6, "invalid_request", "body.messages"]
        ])
        const output = yield* linesOf(batch.output_file_id)
        assert.deepStrictEqual(
          output.map((
            line
          ) => [line.custom_id, line.response.status_code, line.response.body.choices[0].message.content]),
          [["a", 200, "echo one"], ["b", 200, "echo two"]]
        )
        const errors = yield* linesOf(batch.error_file_id)
        assert.deepStrictEqual(errors.map((line) => line.custom_id), [null, "a", "c", "d", "e"])
        assert.strictEqual(errors[4].response.status_code, 500)
        assert.isNumber(batch.completed_at)
        assert.isNumber(batch.finalizing_at)
        assert.isNumber(batch.in_progress_at)
      }))

    it.effect("fails a batch whose file has no valid line", () =>
      Effect.gen(function*() {
        const created = yield* create(["[1]", "{\"custom_id\":\"x\"}"])
        const batch = yield* settled(created.id)
        assert.deepStrictEqual([batch.status, batch.request_counts], ["failed", { total: 2, completed: 0, failed: 2 }])
        assert.deepStrictEqual(batch.errors?.data.map((error) => error.line), [1, 2])
      }))

    it.effect("answers 400 without a provider selection and for an unknown input file", () =>
      Effect.gen(function*() {
        const none = yield* Effect.flip(create([chatLine("a", "x")], {}))
        assert.deepStrictEqual([none._tag, none instanceof GatewayError.InvalidRequest && none.param], [
          "InvalidRequest",
          "x-gateway-provider"
        ])
        const unknown = yield* Effect.flip(Batches.Batches.use((batches) =>
          batches.create({
            principal,
            headers: selection,
            body: { input_file_id: "file-none", endpoint: "/v1/chat/completions", completion_window: "24h" }
          })
        ))
        assert.deepStrictEqual([unknown._tag, unknown instanceof GatewayError.InvalidRequest && unknown.param], [
          "InvalidRequest",
          "input_file_id"
        ])
      }))

    it.effect("a provider's 429 makes a line wait and try again instead of failing", () =>
      Effect.gen(function*() {
        limitedTimes = 1
        const started = Date.now()
        const created = yield* create([chatLine("slow", `limited ${name}`, "rate-limited")])
        const batch = yield* settled(created.id)
        // the line waited the second the provider asked for before it was tried again
        assert.isAtLeast(Date.now() - started, 1000)
        assert.deepStrictEqual([batch.status, batch.request_counts], ["completed", {
          total: 1,
          completed: 1,
          failed: 0
        }])
        assert.strictEqual(calls.get(`limited ${name}`), 2)
      }), { timeout: 15_000 })

    it.effect("cancels: cancelling at once, then cancelled; an ended batch is a 409", () =>
      Effect.gen(function*() {
        const created = yield* create([chatLine("a", "c1"), chatLine("b", "c2")])
        const cancelling: Batch.Batch = yield* Batches.Batches.use((batches) => batches.cancel(WS, created.id))
        assert.strictEqual(cancelling.status, "cancelling")
        const batch = yield* settled(created.id)
        assert.strictEqual(batch.status, "cancelled")
        assert.isNumber(batch.cancelled_at)
        const done = yield* settled((yield* create([chatLine("z", "done")])).id)
        const again = yield* Effect.flip(Batches.Batches.use((batches) => batches.cancel(WS, done.id)))
        assert.strictEqual(again._tag, "Conflict")
      }))

    it.effect("keeps workspaces apart and lists newest first", () =>
      Effect.gen(function*() {
        const created = yield* create([chatLine("a", "listed")])
        const other = yield* Effect.flip(Batches.Batches.use((batches) => batches.get("other-workspace", created.id)))
        assert.strictEqual(other._tag, "NotFound")
        const page = yield* Batches.Batches.use((batches) => batches.list(WS, { limit: 1, order: "desc" }))
        assert.deepStrictEqual([page.data.map((batch) => batch.id), page.has_more], [[created.id], true])
        yield* settled(created.id)
      }))
  })
}

layer(live(TestDatabase.layerSqlite, 2), { excludeTestServices: true })("a batch's lines in flight", (it) => {
  it.effect("stay within maxLinesInFlight however many workers take jobs, and every line still runs", () =>
    Effect.gen(function*() {
      const created = yield* create(
        Array.from({ length: 9 }, (_, index) => chatLine(`t${index}`, `t${index}`, "tracked"))
      )
      const batch = yield* settled(created.id)
      assert.deepStrictEqual([batch.status, batch.request_counts], ["completed", { total: 9, completed: 9, failed: 0 }])
      assert.strictEqual(tracked.most, 2)
      const output = yield* linesOf(batch.output_file_id)
      assert.deepStrictEqual(output.map((line) => line.custom_id), Array.from({ length: 9 }, (_, index) => `t${index}`))
    }))
})

const trackedBatch = (prefix: string, lines: number, headers: Record<string, string> = selection) =>
  create(
    Array.from({ length: lines }, (_, index) => chatLine(`${prefix}${index}`, `${prefix}${index}`, "tracked")),
    headers
  )

const completedAll = (ids: ReadonlyArray<string>, lines: number) =>
  Effect.gen(function*() {
    for (const id of ids) {
      const batch = yield* settled(id)
      assert.deepStrictEqual([batch.status, batch.request_counts], ["completed", {
        total: lines,
        completed: lines,
        failed: 0
      }])
    }
  })

layer(live(TestDatabase.layerSqlite, undefined, { maxLinesPerTarget: 2, concurrency: 8 }), {
  excludeTestServices: true
})("the lines sent to one provider target", (it) => {
  it.effect("stay within maxLinesPerTarget over every batch on that target, and every line still runs", () =>
    Effect.gen(function*() {
      tracked.most = 0
      const batches = [yield* trackedBatch("same-a", 8), yield* trackedBatch("same-b", 8)]
      yield* completedAll(batches.map((batch) => batch.id), 8)
      // two batches, eight takers, a batch bound of 64: only the target's bound kept them to 2
      assert.strictEqual(tracked.most, 2)
    }))

  it.effect("are bounded per target: batches on two targets run the bound on each at once", () =>
    Effect.gen(function*() {
      tracked.most = 0
      const batches = [
        yield* trackedBatch("key-a", 12),
        yield* trackedBatch("key-b", 12, { "x-gateway-provider": "openai", authorization: "Bearer sk-other" })
      ]
      yield* completedAll(batches.map((batch) => batch.id), 12)
      assert.strictEqual(tracked.most, 4)
    }))
})

// two worker processes on one Postgres: each has its own stack (queue, batches, takers), as two apps would
const twoWorkers = workerStack({ maxLinesPerTarget: 2, concurrency: 8 }).pipe(
  Layer.merge(Layer.fresh(workerStack({ maxLinesPerTarget: 2, concurrency: 8 }))),
  Layer.provideMerge(TestDatabase.layerPostgres)
)

layer(twoWorkers, { excludeTestServices: true })("maxLinesPerTarget with two workers on one Postgres", (it) => {
  it.effect(
    "bounds each process: one target gets more than one process's bound, never more than both",
    () =>
      Effect.gen(function*() {
        tracked.most = 0
        const batch = yield* trackedBatch("two-workers", 40)
        yield* completedAll([batch.id], 40)
        assert.isAbove(tracked.most, 2)
        assert.isAtMost(tracked.most, 4)
      }),
    { timeout: 20_000 }
  )
})

describe("retryAfterSeconds", () => {
  it("reads retry-after-ms first, then retry-after, at most 60 s, else the default pause", () => {
    assert.strictEqual(Batches.retryAfterSeconds({ "retry-after-ms": "1500", "retry-after": "9" }), 1.5)
    assert.strictEqual(Batches.retryAfterSeconds({ "retry-after": "2" }), 2)
    assert.strictEqual(Batches.retryAfterSeconds({ "retry-after": "3600" }), 60)
    assert.strictEqual(Batches.retryAfterSeconds({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }), 1)
    assert.strictEqual(Batches.retryAfterSeconds({}), 1)
  })
})
