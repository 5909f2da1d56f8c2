/**
 * The records in SQL, on SQLite and on Postgres: written in batches and read back as the API
 * answers them; the filters; pages newest first; a workspace sees only its own; the retention
 * delete.
 */
import { assert, layer } from "@effect/vitest"
import { RequestNotes } from "@switchyard/core"
import { type LogQuery, type LogRecord, LogRows, RequestLogStore } from "@switchyard/request-log"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"
import { entry } from "./support/LogEntries.ts"

const page = { limit: 20, order: "desc" } as const

const denied: RequestNotes.HookNote = {
  id: "no-secrets",
  stage: "before",
  target_path: "config.targets[0]",
  type: "guardrail",
  verdict: false,
  deny: true,
  execution_time: 3,
  checks: [
    { id: "default.contains", verdict: false, explanation: "1 of 1 words found", execution_time: 1 },
    { id: "default.webhook", verdict: true, explanation: "could not decide", error: "timeout", execution_time: 2 }
  ]
}
const traces = (records: ReadonlyArray<LogRecord.LogRecord>) => records.map((record) => record.trace_id)

const stores = [
  ...TestDatabase.dialects.map(({ layer: database, name }) => ({
    name,
    layer: RequestLogStore.RequestLogStore.layerSql.pipe(Layer.provideMerge(database))
  })),
  {
    name: "a SQLite file, written by the writer thread",
    layer: RequestLogStore.RequestLogStore.layerSqliteWriter.pipe(Layer.provideMerge(TestDatabase.layerSqliteFile))
  }
]

for (const { layer: store, name } of stores) {
  layer(store)(
    `RequestLogStore on ${name}`,
    (it) => {
      it.effect("reads back a record as the API answers it", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          yield* store.write(LogRows.LogRows.of([
            entry("t-shape", { stream: true, firstTokenMs: 4.5, requestBody: { model: "m" }, responseBody: [{ a: 1 }] })
          ]))
          const [record] = (yield* store.list("ws-1", { ...page, trace_id: "t-shape" })).data
          assert.deepStrictEqual({ ...record, id: "" }, {
            id: "",
            object: "request_log",
            created_at: 1_700_000_000,
            trace_id: "t-shape",
            route: "POST /v1/chat/completions",
            endpoint: "chat.completions",
            status: 200,
            stream: true,
            provider: "openai",
            model: "gpt-4o-mini",
            target_path: "config.targets[1]",
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
            cost_usd: 0.0000045,
            latency_ms: 12.35,
            time_to_first_token_ms: 4.5,
            cache_status: "MISS",
            retries: 1,
            api_key_id: "key-1",
            workspace_id: "ws-1",
            metadata: { team: "search" },
            hook_results: [],
            request_body: { model: "m" },
            response_body: [{ a: 1 }]
          })
          assert.deepStrictEqual(yield* store.get("ws-1", record?.id ?? ""), record)
        }))

      it.effect("keeps each hook's result, as noted by the time the batch is written", () =>
        Effect.gen(function*() {
          // a request whose hooks may note results is marked as its guardrails stage starts
          const notes: RequestNotes.RequestNotes = {}
          RequestNotes.expectHooks(notes)
          const recorded = LogRows.LogRows.of([entry("t-hooks", { notes }), entry("t-no-hooks", { notes: {} })])
          // noted after the request was recorded (a stream's checks), before the batch is written
          RequestNotes.noteHooks(notes, [denied])
          yield* (yield* RequestLogStore.RequestLogStore).write(recorded)
          const store = yield* RequestLogStore.RequestLogStore
          const [record] = (yield* store.list("ws-1", { ...page, trace_id: "t-hooks" })).data
          assert.deepStrictEqual(record?.hook_results, [denied])
          assert.deepStrictEqual((yield* store.get("ws-1", record?.id ?? "")).hook_results, [denied])
          const [none] = (yield* store.list("ws-1", { ...page, trace_id: "t-no-hooks" })).data
          assert.deepStrictEqual(none?.hook_results, [])
        }))

      it.effect("filters by trace, status, provider, model, key and time", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          const ws = "ws-filters"
          yield* store.write(LogRows.LogRows.of([
            entry("f-1", { workspaceId: ws, receivedAt: 1_000_000 }),
            entry("f-2", { workspaceId: ws, receivedAt: 2_000_500, status: 502, usage: undefined, costUsd: undefined }),
            entry("f-3", {
              workspaceId: ws,
              receivedAt: 3_000_000,
              provider: "anthropic",
              model: "claude",
              apiKeyId: "k2"
            })
          ]))
          const list = (query: Omit<LogQuery.LogQuery, "limit" | "order">) =>
            Effect.map(store.list(ws, { ...page, ...query }), (answer) => traces(answer.data))
          assert.deepStrictEqual(yield* list({}), ["f-3", "f-2", "f-1"])
          assert.deepStrictEqual(yield* list({ trace_id: "f-2" }), ["f-2"])
          assert.deepStrictEqual(yield* list({ status: 502 }), ["f-2"])
          assert.deepStrictEqual(yield* list({ provider: "anthropic" }), ["f-3"])
          assert.deepStrictEqual(yield* list({ model: "gpt-4o-mini" }), ["f-2", "f-1"])
          assert.deepStrictEqual(yield* list({ api_key_id: "k2" }), ["f-3"])
          // `to` includes its whole second, `from` starts at its first millisecond
          assert.deepStrictEqual(yield* list({ from: 2_000, to: 2_000 }), ["f-2"])
          assert.deepStrictEqual(yield* list({ from: 2_001 }), ["f-3"])
          assert.deepStrictEqual(yield* list({ to: 1_999 }), ["f-1"])
        }))

      it.effect("pages newest first with limit, after and before", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          const ws = "ws-pages"
          yield* store.write(
            LogRows.LogRows.of([1, 2, 3, 4, 5].map((n) => entry(`p-${n}`, { workspaceId: ws, receivedAt: n * 1000 })))
          )
          const first = yield* store.list(ws, { ...page, limit: 2 })
          assert.deepStrictEqual([traces(first.data), first.has_more], [["p-5", "p-4"], true])
          const second = yield* store.list(ws, { ...page, limit: 2, after: first.last_id ?? "" })
          assert.deepStrictEqual(traces(second.data), ["p-3", "p-2"])
          const back = yield* store.list(ws, { ...page, limit: 2, before: second.first_id ?? "" })
          assert.deepStrictEqual(traces(back.data), ["p-5", "p-4"])
          const ascending = yield* store.list(ws, { limit: 2, order: "asc" })
          assert.deepStrictEqual(traces(ascending.data), ["p-1", "p-2"])
          const unknown = yield* Effect.flip(store.list(ws, { ...page, after: "nope" }))
          assert.strictEqual(unknown._tag, "InvalidRequest")
        }))

      it.effect("keeps each workspace's records to itself", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          yield* store.write(
            LogRows.LogRows.of([entry("mine", { workspaceId: "ws-a" }), entry("theirs", { workspaceId: "ws-b" })])
          )
          const [mine] = (yield* store.list("ws-a", page)).data
          assert.deepStrictEqual(traces((yield* store.list("ws-a", page)).data), ["mine"])
          assert.strictEqual((yield* Effect.flip(store.get("ws-b", mine?.id ?? "")))._tag, "NotFound")
          // a cursor from another workspace's list names no record of this one
          assert.strictEqual(
            (yield* Effect.flip(store.list("ws-b", { ...page, after: mine?.id ?? "" })))._tag,
            "InvalidRequest"
          )
        }))

      it.effect("deletes the records received before a time, a chunk at a time, and says how many", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          const ws = "ws-retention"
          const old = (count: number, before: number) =>
            Array.from(
              { length: count },
              (_, index) => entry(`gone-${index}`, { workspaceId: ws, receivedAt: before - count + index })
            )
          // two and a half chunks, then exactly two: the sweep stops at a short chunk, or an empty one
          yield* store.write(LogRows.LogRows.of([
            ...old(RequestLogStore.SWEEP_CHUNK * 2.5, 1_000),
            entry("kept", { workspaceId: ws, receivedAt: 9_000_000_000_000 })
          ]))
          assert.strictEqual(yield* store.deleteBefore(1_000), RequestLogStore.SWEEP_CHUNK * 2.5)
          yield* store.write(LogRows.LogRows.of(old(RequestLogStore.SWEEP_CHUNK * 2, 1_000)))
          assert.strictEqual(yield* store.deleteBefore(1_000), RequestLogStore.SWEEP_CHUNK * 2)
          assert.strictEqual(yield* store.deleteBefore(1_000), 0)
          assert.deepStrictEqual(traces((yield* store.list(ws, page)).data), ["kept"])
        }))

      it.effect("writes a batch larger than one INSERT", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          const ws = "ws-many"
          yield* store.write(
            LogRows.LogRows.of(Array.from({ length: 250 }, (_, n) => entry(`m-${n}`, { workspaceId: ws })))
          )
          const listed = yield* store.list(ws, { ...page, limit: 100 })
          assert.isTrue(listed.has_more)
          assert.strictEqual(listed.data.length, 100)
        }))

      it.effect("gives records time-ordered ids (UUIDv7), so each lands at the end of the key's index", () =>
        Effect.gen(function*() {
          const store = yield* RequestLogStore.RequestLogStore
          const ws = "ws-ids"
          // written a millisecond apart, each received later than the one before
          for (let n = 0; n < 5; n++) {
            const before = Date.now()
            while (Date.now() === before) yield* Effect.yieldNow
            yield* store.write(
              LogRows.LogRows.of([entry(`i-${n}`, { workspaceId: ws, receivedAt: 1_700_000_000_000 + n })])
            )
          }
          // listed newest received first: reversed, the order they were written in
          const written = (yield* store.list(ws, page)).data.map((record) => record.id).reverse()
          for (const id of written) {
            assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
          }
          assert.deepStrictEqual([...written].sort(), written)
        }))
    }
  )
}
