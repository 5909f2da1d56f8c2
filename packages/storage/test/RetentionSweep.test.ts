import { assert, describe, it } from "@effect/vitest"
import { RetentionSweep } from "@switchyard/storage"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

describe("RetentionSweep.forever", () => {
  it.effect("sweeps at once and then every interval, at the clock's time; a failed sweep waits for the next", () =>
    Effect.gen(function*() {
      const asked: Array<number> = []
      const fiber = yield* Effect.forkChild(RetentionSweep.forever({
        what: "notes",
        items: "notes",
        interval: Duration.hours(1),
        deleteOlder: (nowMs) => {
          asked.push(nowMs)
          return asked.length === 2 ? Effect.fail("locked") : Effect.succeed(1)
        }
      }))
      yield* Effect.yieldNow
      assert.deepStrictEqual(asked, [0])
      yield* TestClock.adjust(Duration.hours(2))
      // the second failed, and the third ran an hour later all the same
      assert.deepStrictEqual(asked, [0, 3_600_000, 7_200_000])
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust(Duration.hours(2))
      assert.strictEqual(asked.length, 3)
    }))
})
