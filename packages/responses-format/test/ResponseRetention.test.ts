/**
 * The retention sweep, on the test clock: it runs as the layer is built and then every hour, and
 * deletes what was created more than the retention period ago. GATEWAY_RESPONSES_RETENTION_DAYS
 * is a whole number of days from 1.
 */
import { assert, describe, it } from "@effect/vitest"
import { ResponseObject, ResponseRetention, ResponsesRequest, ResponseStore } from "@switchyard/responses-format"
import { TestDatabase } from "@switchyard/storage/testing"
import { ConfigProvider, Duration, Effect, Layer, Result } from "effect"
import { TestClock } from "effect/testing"

const request = Result.getOrThrow(ResponsesRequest.decode({ model: "m", input: "hi" }))
const HOUR = Duration.hours(1)

const answered = (id: string, createdAt: number): ResponseObject.Response => ({
  ...ResponseObject.skeleton(request, id, createdAt, "m"),
  status: "completed",
  output: []
})

const kept = (id: string) =>
  ResponseStore.ResponseStore.use((store) =>
    store.get("ws", id).pipe(Effect.as(true), Effect.catchTag("NotFound", () => Effect.succeed(false)))
  )

describe("ResponseRetention", () => {
  it.effect("deletes, every hour, the responses created more than the retention period ago", () =>
    Effect.gen(function*() {
      const store = yield* ResponseStore.ResponseStore
      // the test clock starts at 0: one response now, one a day (less a minute) later
      yield* store.save("ws", answered("resp_first", 0), { previousResponseId: null, items: [], inputOffset: 0 })
      yield* TestClock.adjust(Duration.hours(24))
      yield* store.save("ws", answered("resp_second", 86_340), { previousResponseId: null, items: [], inputOffset: 0 })
      // a day after the first was created, it is still within its day
      assert.isTrue(yield* kept("resp_first"))
      // the sweep an hour later finds it more than a day old; the second is not yet
      yield* TestClock.adjust(HOUR)
      assert.isFalse(yield* kept("resp_first"))
      assert.isTrue(yield* kept("resp_second"))
      yield* TestClock.adjust(Duration.hours(24))
      assert.isFalse(yield* kept("resp_second"))
    }).pipe(
      Effect.provide(
        ResponseRetention.layer({ retentionDays: 1 }).pipe(
          Layer.provideMerge(ResponseStore.ResponseStore.layer),
          Layer.provide(TestDatabase.layerSqlite)
        )
      )
    ))

  it.effect("reads GATEWAY_RESPONSES_RETENTION_DAYS: 30 by default, whole days from 1, nothing else", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        ResponseRetention.OptionsConfig.parse(ConfigProvider.fromEnv({ env })).pipe(
          Effect.map((options) => options.retentionDays)
        )
      assert.strictEqual(yield* read({}), 30)
      assert.strictEqual(yield* read({ GATEWAY_RESPONSES_RETENTION_DAYS: "7" }), 7)
      for (const refused of ["0", "-3", "1.5", "a week"]) {
        const error = yield* Effect.flip(read({ GATEWAY_RESPONSES_RETENTION_DAYS: refused }))
        assert.include(String(error), "GATEWAY_RESPONSES_RETENTION_DAYS", refused)
      }
    }))
})
