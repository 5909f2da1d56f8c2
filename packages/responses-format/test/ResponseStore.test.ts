import { assert, layer } from "@effect/vitest"
import { ResponseObject, ResponsesRequest, ResponseStore } from "@switchyard/responses-format"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Result } from "effect"

const request = Result.getOrThrow(ResponsesRequest.decode({ model: "m", input: "hi" }))

const answered = (id: string): ResponseObject.Response => ({
  ...ResponseObject.skeleton(request, id, 1_760_000_000, "m"),
  status: "completed",
  output: [{ type: "message", id: `msg_${id}`, status: "completed", role: "assistant", content: [] }]
})

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(ResponseStore.ResponseStore.layer.pipe(Layer.provideMerge(database)))(`ResponseStore on ${name}`, (it) => {
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
  })
}
