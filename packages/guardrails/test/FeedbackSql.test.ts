import { assert, layer } from "@effect/vitest"
import { Feedback, FeedbackSql } from "@switchyard/guardrails"
import type { SqliteWriter } from "@switchyard/storage"
import { TestDatabase, WriteLock } from "@switchyard/storage/testing"
import { Effect, type Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { randomBytes } from "node:crypto"

const stores: ReadonlyArray<{
  readonly name: string
  readonly store: Layer.Layer<Feedback.FeedbackStore, never, SqlClient.SqlClient | SqliteWriter.SqliteWriter>
}> = [
  { name: "layerSql", store: FeedbackSql.layerSql },
  { name: "layerSqliteWriter", store: FeedbackSql.layerSqliteWriter }
]

const feedback = (traceId: string, overrides: Partial<Feedback.NewFeedback> = {}): Feedback.NewFeedback => ({
  workspaceId: "ws-1",
  traceId,
  value: 7,
  weight: 0.5,
  metadata: { by: "user", scores: [1, 2] },
  source: "client",
  hookId: null,
  ...overrides
})

for (const { name, store } of stores) {
  layer(TestDatabase.layerSqliteFile)(`FeedbackSql.${name}`, (it) => {
    it.effect("lists what it records by workspace and trace id, oldest first, as it was given", () =>
      Effect.gen(function*() {
        const feedbackStore = yield* Feedback.FeedbackStore
        const traceId = `t-${randomBytes(4).toString("hex")}`
        const first = yield* feedbackStore.record(feedback(traceId))
        yield* TestClock.adjust("1 second")
        const second = yield* feedbackStore.record(
          feedback(traceId, { value: -3, weight: 1, metadata: {}, source: "hook", hookId: "hook-1" })
        )
        yield* feedbackStore.record(feedback(traceId, { workspaceId: "ws-2" }))
        const listed = yield* feedbackStore.list("ws-1", traceId)
        assert.deepStrictEqual(listed, [first, second])
        assert.deepStrictEqual(listed.map((entry) => [entry.value, entry.source, entry.hook_id, entry.metadata]), [
          [7, "client", null, { by: "user", scores: [1, 2] }],
          [-3, "hook", "hook-1", {}]
        ])
        assert.strictEqual(second.created_at, new Date(1_000).toISOString())
        assert.strictEqual((yield* feedbackStore.list("ws-2", traceId)).length, 1)
      }).pipe(Effect.provide(store)))
  })
}

layer(TestDatabase.layerSqliteFile)("FeedbackSql.layerSqliteWriter on the event loop", (it) => {
  it.effect("inserts in the writer thread: while another connection holds the write lock, the event loop runs on", () =>
    Effect.gen(function*() {
      const feedbackStore = yield* Feedback.FeedbackStore
      const locked = yield* WriteLock.underWriteLock(feedbackStore.record(feedback("t-locked")))
      assert.isTrue(locked.eventLoopRan)
      assert.isTrue(locked.waited)
      assert.deepStrictEqual(yield* feedbackStore.list("ws-1", "t-locked"), [locked.result])
    }).pipe(Effect.provide(FeedbackSql.layerSqliteWriter)))
})
