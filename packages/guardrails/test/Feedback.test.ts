import { assert, describe, it } from "@effect/vitest"
import { Feedback } from "@switchyard/guardrails"
import { Effect } from "effect"

describe("Feedback", () => {
  it.effect("POST /v1/feedback records a client's feedback that GET lists by trace id", () =>
    Effect.gen(function*() {
      const created = yield* Feedback.create("ws-1", {
        trace_id: "t-1",
        value: 7,
        weight: 0.5,
        metadata: { by: "user" }
      })
      assert.strictEqual(created.feedback_ids.length, 1)
      const listed = yield* Feedback.list("ws-1", { trace_id: "t-1" })
      assert.deepStrictEqual(listed.data.map((f) => [f.value, f.weight, f.source, f.metadata]), [[7, 0.5, "client", {
        by: "user"
      }]])
      assert.strictEqual((yield* Feedback.list("ws-2", { trace_id: "t-1" })).data.length, 0)
    }).pipe(Effect.provide(Feedback.FeedbackStore.layerMemory)))

  it.effect("a value out of range is a 400 naming the field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Feedback.create("ws-1", { trace_id: "t-1", value: 11 }))
      assert.strictEqual(error.param, "value")
    }).pipe(Effect.provide(Feedback.FeedbackStore.layerMemory)))

  it.effect("a list without trace_id is a 400", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Feedback.list("ws-1", {}))
      assert.strictEqual(error._tag, "InvalidRequest")
    }).pipe(Effect.provide(Feedback.FeedbackStore.layerMemory)))
})
