import { assert, layer } from "@effect/vitest"
import { Conversation, ResponseObject, ResponsesRequest, ResponseStore } from "@switchyard/responses-format"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import fc from "fast-check"

const request = Result.getOrThrow(ResponsesRequest.decode({ model: "m", input: "hi" }))

const answered = (id: string, createdAt = 1_760_000_000): ResponseObject.Response => ({
  ...ResponseObject.skeleton(request, id, createdAt, "m"),
  status: "completed",
  output: [{ type: "message", id: `msg_${id}`, status: "completed", role: "assistant", content: [] }]
})

/** A conversation that continues no stored response. */
const fresh = (items: ReadonlyArray<unknown>): ResponseStore.Answered => ({
  previousResponseId: null,
  items,
  inputOffset: 0
})

const user = (text: string) => ({ type: "message", role: "user", content: text })

/** Response `id` answering `text` after `previousId`, saved as the Responses route saves it. */
const continuing = (workspaceId: string, previousId: string | null, id: string, text: string, createdAt?: number) =>
  Effect.gen(function*() {
    const store = yield* ResponseStore.ResponseStore
    const next = Result.getOrThrow(ResponsesRequest.decode({
      model: "m",
      input: [user(text)],
      ...(previousId === null ? {} : { previous_response_id: previousId })
    }))
    const conversation = yield* Conversation.expand(store, workspaceId, next)
    yield* store.save(workspaceId, answered(id, createdAt), conversation)
    return conversation
  })

/** A response after `previousId` saved straight to the store: its own input only, for long chains. */
const chained = (previousId: string | null, id: string, createdAt: number) =>
  ResponseStore.ResponseStore.use((store) =>
    store.save("ws-a", answered(id, createdAt), { previousResponseId: previousId, items: [user(id)], inputOffset: 0 })
  )

const rowOf = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ readonly input_items: string; readonly previous_response_id: string | null }>`
        SELECT input_items, previous_response_id FROM responses WHERE id = ${id}`,
      (rows) => rows[0]
    ))

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
        yield* store.save("ws-a", answered("resp_1"), fresh(input))
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
          (index) =>
            store.save(index % 2 === 0 ? "ws-a" : "ws-b", answered(`resp_old${index}`, 1_000 + index), fresh([])),
          { concurrency: 20, discard: true }
        )
        yield* store.save("ws-a", answered("resp_new", 5_000), fresh([]))
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
        yield* store.save("ws-a", answered("resp_2"), fresh(input))
        // a second response whose id is taken: neither its row nor its item may be kept
        const again = { ...answered("resp_2"), output: [{ ...answered("resp_2").output[0]!, id: "msg_other" }] }
        const error = yield* Effect.flip(store.save("ws-a", again, fresh([])))
        assert.strictEqual(error._tag, "InternalError")
        assert.match(error.message, /^responses: /)
        assert.deepStrictEqual(yield* store.get("ws-a", "resp_2"), { response: answered("resp_2"), input })
        assert.isUndefined(yield* store.item("ws-a", "msg_other"))
      }))

    it.effect("a response continuing another keeps its own input only; the conversation is read back along the chain", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        yield* continuing("ws-a", null, "resp_c0", "turn 0")
        let last: Conversation.Expanded | undefined = undefined
        for (let turn = 1; turn < 30; turn++) {
          last = yield* continuing("ws-a", `resp_c${turn - 1}`, `resp_c${turn}`, `turn ${turn}`)
        }
        const kept = yield* store.get("ws-a", "resp_c29")
        // what the last turn answered, as the route expanded it: every turn's input and output
        assert.strictEqual(kept.input.length, 59)
        assert.deepStrictEqual(kept.input, last?.items)
        assert.deepStrictEqual(kept.input[58], user("turn 29"))
        assert.deepStrictEqual(kept.input[57], answered("resp_c28").output[0])
        // each row holds its own turn: space grows with the turns, not with their square
        for (const turn of [1, 15, 29]) {
          const row = yield* rowOf(`resp_c${turn}`)
          assert.deepStrictEqual(JSON.parse(row?.input_items ?? ""), [user(`turn ${turn}`)])
          assert.strictEqual(row?.previous_response_id, `resp_c${turn - 1}`)
        }
        // the chain stays in its workspace
        assert.strictEqual((yield* Effect.flip(store.get("ws-b", "resp_c29")))._tag, "NotFound")
      }))

    it.effect("deleting a response that others continue gives them the conversation they answered", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        yield* continuing("ws-a", null, "resp_d0", "first")
        yield* continuing("ws-a", "resp_d0", "resp_d1", "second")
        // two continue the second: a fork
        yield* continuing("ws-a", "resp_d1", "resp_d2", "third")
        yield* continuing("ws-a", "resp_d1", "resp_d3", "another third")
        const before = [yield* store.get("ws-a", "resp_d2"), yield* store.get("ws-a", "resp_d3")]
        yield* store.delete("ws-a", "resp_d1")
        assert.strictEqual((yield* Effect.flip(store.get("ws-a", "resp_d1")))._tag, "NotFound")
        assert.isUndefined(yield* store.item("ws-a", "msg_resp_d1"))
        assert.deepStrictEqual([yield* store.get("ws-a", "resp_d2"), yield* store.get("ws-a", "resp_d3")], before)
        assert.isNull((yield* rowOf("resp_d2"))?.previous_response_id)
        // the first is untouched, and a delete of it now changes nothing for the others
        assert.strictEqual((yield* store.get("ws-a", "resp_d0")).input.length, 1)
        yield* store.delete("ws-a", "resp_d0")
        assert.deepStrictEqual(yield* store.get("ws-a", "resp_d3"), before[1])
      }))

    it.effect("a response saved after the one it continues was deleted keeps the whole conversation", () =>
      Effect.gen(function*() {
        const store = yield* ResponseStore.ResponseStore
        yield* continuing("ws-a", null, "resp_g0", "first")
        const next = Result.getOrThrow(ResponsesRequest.decode({
          model: "m",
          input: [user("second")],
          previous_response_id: "resp_g0"
        }))
        const conversation = yield* Conversation.expand(store, "ws-a", next)
        // deleted while the second was being answered
        yield* store.delete("ws-a", "resp_g0")
        yield* store.save("ws-a", answered("resp_g1"), conversation)
        assert.deepStrictEqual((yield* store.get("ws-a", "resp_g1")).input, conversation.items)
        assert.isNull((yield* rowOf("resp_g1"))?.previous_response_id)
      }))

    it.effect(
      "the sweep deletes whole expired chains, and a newer response keeps what it answered",
      () =>
        Effect.gen(function*() {
          const store = yield* ResponseStore.ResponseStore
          // a chain longer than a chunk, a second apart, continued by one newer than the cut
          const length = ResponseStore.SWEEP_CHUNK + 3
          for (let turn = 0; turn < length; turn++) {
            yield* chained(turn === 0 ? null : `resp_l${turn - 1}`, `resp_l${turn}`, 1_000 + turn)
          }
          yield* chained(`resp_l${length - 1}`, "resp_l_new", 9_000)
          // and one of 40 created in the same second, all in one chunk: deleted together
          for (let turn = 0; turn < 40; turn++) {
            yield* chained(turn === 0 ? null : `resp_s${turn - 1}`, `resp_s${turn}`, 2_000)
          }
          const before = yield* store.get("ws-a", "resp_l_new")
          assert.strictEqual(before.input.length, length * 2 + 1)
          assert.strictEqual(yield* store.deleteBefore(5_000), length + 40)
          assert.deepStrictEqual(yield* store.get("ws-a", "resp_l_new"), before)
          assert.isNull((yield* rowOf("resp_l_new"))?.previous_response_id)
          for (const gone of ["resp_l0", `resp_l${length - 1}`, "resp_s0", "resp_s39"]) {
            assert.strictEqual((yield* Effect.flip(store.get("ws-a", gone)))._tag, "NotFound")
          }
          assert.strictEqual(yield* store.deleteBefore(5_000), 0)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "any run of saves, deletes and sweeps: every response left reads the conversation it answered",
      () =>
        Effect.gen(function*() {
          const store = yield* ResponseStore.ResponseStore
          const operation = fc.oneof(
            {
              weight: 6,
              arbitrary: fc.record({ kind: fc.constant("save" as const), pick: fc.nat(), fresh: fc.boolean() })
            },
            { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant("sweep" as const), back: fc.nat({ max: 12 }) }) }
          )
          // at least 20 steps a run: fast-check's default size makes arrays of a few items, too short for chains to form and be cut
          const runs = fc.sample(fc.array(operation, { minLength: 20, maxLength: 40 }), { numRuns: 12, seed: 4_242 })
          for (const [run, operations] of runs.entries()) {
            const workspaceId = `ws-run${run}`
            // each run's responses are created after every earlier run's, a second apart
            const start = 100_000 + run * 1_000
            const expected = new Map<string, { readonly items: ReadonlyArray<unknown>; readonly createdAt: number }>()
            for (const [step, op] of operations.entries()) {
              const kept = [...expected.keys()]
              const picked = "pick" in op && kept.length > 0 ? kept[op.pick % kept.length] : undefined
              if (op.kind === "save") {
                const previous = op.fresh ? null : picked ?? null
                const id = `resp_r${run}s${step}`
                const conversation = yield* continuing(
                  workspaceId,
                  previous,
                  id,
                  `run ${run} step ${step}`,
                  start + step
                )
                expected.set(id, { items: conversation.items, createdAt: start + step })
              } else if (op.kind === "delete" && picked !== undefined) {
                yield* store.delete(workspaceId, picked)
                expected.delete(picked)
              } else if (op.kind === "sweep") {
                const cut = start + step - op.back
                yield* store.deleteBefore(cut)
                for (const [id, { createdAt }] of expected) if (createdAt < cut) expected.delete(id)
              }
            }
            for (const [id, { items }] of expected) {
              assert.deepStrictEqual((yield* store.get(workspaceId, id)).input, items, `run ${run}: ${id}`)
            }
          }
        }),
      { timeout: 60_000 }
    )
  })
}
