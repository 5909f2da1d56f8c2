import { assert, layer } from "@effect/vitest"
import { ResponseObject, ResponsesRequest, ResponseStore } from "@switchyard/responses-format"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"

const request = Result.getOrThrow(ResponsesRequest.decode({ model: "m", input: "hi" }))

const answered = (id: string, createdAt = 1_760_000_000): ResponseObject.Response => ({
  ...ResponseObject.skeleton(request, id, createdAt, "m"),
  status: "completed",
  output: [{ type: "message", id: `msg_${id}`, status: "completed", role: "assistant", content: [] }]
})

const stores = [
  ...TestDatabase.dialects.map(({ layer: database, name }) => ({
    name,
    layer: ResponseStore.ResponseStore.layer.pipe(Layer.provideMerge(database))
  })),
  {
    name: "a SQLite file, saved by the writer thread",
    layer: ResponseStore.ResponseStore.layerSqliteWriter.pipe(Layer.provideMerge(TestDatabase.layerSqliteFile))
  }
]

for (const { name, layer: store } of stores) {
  layer(store)(`ResponseStore on ${name}`, (it) => {
    it.effect("keeps a response with its conversation, its items by id, per workspace; delete removes both", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        const input = [{ type: "message", role: "user", content: "hi" }]
        yield* store.save("ws-a", answered("resp_1"), input)
        const kept = yield* store.get("ws-a", "resp_1")
        assert.deepStrictEqual(kept, { response: answered("resp_1"), input })
        assert.deepStrictEqual(yield* store.item("ws-a", "msg_resp_1"), answered("resp_1").output[0])
        // another workspace sees neither the response nor its items
        const other = yield* Effect.flip(store.get("ws-b", "resp_1"))
        assert.strictEqual(other._tag, "NotFound")
        assert.isUndefined(yield* store.item("ws-b", "msg_resp_1"))
        assert.strictEqual((yield* Effect.flip(store.delete("ws-b", "resp_1")))._tag, "NotFound")
        assert.deepStrictEqual(yield* store.delete("ws-a", "resp_1"), {
          id: "resp_1",
          object: "response",
          deleted: true
        })
        assert.strictEqual((yield* Effect.flip(store.get("ws-a", "resp_1")))._tag, "NotFound")
        assert.isUndefined(yield* store.item("ws-a", "msg_resp_1"))
      }))

    it.effect("deletes the responses created before a time with their items, in every workspace, a chunk at a time", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        const old = ResponseStore.SWEEP_CHUNK * 2 + 7
        // two and a bit chunks, in two workspaces, created a second apart before the cut
        yield* Effect.forEach(
          Array.from({ length: old }, (_, index) => index),
          (index) => store.save(index % 2 === 0 ? "ws-a" : "ws-b", answered(`resp_old${index}`, 1_000 + index), []),
          { concurrency: 20, discard: true }
        )
        yield* store.save("ws-a", answered("resp_new", 5_000), [])
        assert.strictEqual(yield* store.deleteBefore(5_000), old)
        assert.strictEqual((yield* Effect.flip(store.get("ws-b", "resp_old1")))._tag, "NotFound")
        assert.isUndefined(yield* store.item("ws-a", "msg_resp_old0"))
        const sql = yield* SqlClient.SqlClient
        const [items] = yield* sql<
          { readonly n: number }
        >`SELECT COUNT(*) AS n FROM response_items WHERE id LIKE 'msg_resp_old%'`
        assert.strictEqual(Number(items?.n), 0)
        assert.strictEqual((yield* store.get("ws-a", "resp_new")).response.id, "resp_new")
        assert.deepStrictEqual(yield* store.item("ws-a", "msg_resp_new"), answered("resp_new", 5_000).output[0])
        assert.strictEqual(yield* store.deleteBefore(5_000), 0)
      }))

    it.effect("a save that cannot be kept fails as the gateway's own error and leaves what was kept whole", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        const input = [{ type: "message", role: "user", content: "first" }]
        yield* store.save("ws-a", answered("resp_2"), input)
        // a second response whose id is taken: neither its row nor its item may be kept
        const again = { ...answered("resp_2"), output: [{ ...answered("resp_2").output[0]!, id: "msg_other" }] }
        const error = yield* Effect.flip(store.save("ws-a", again, []))
        assert.strictEqual(error._tag, "InternalError")
        assert.match(error.message, /^responses: /)
        assert.deepStrictEqual(yield* store.get("ws-a", "resp_2"), { response: answered("resp_2"), input })
        assert.isUndefined(yield* store.item("ws-a", "msg_other"))
      }))
  })
}
