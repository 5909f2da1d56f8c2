import { assert, describe, it } from "@effect/vitest"
import { ChunkedDelete } from "@switchyard/storage"
import { Effect } from "effect"

/** A table of `rows` rows, deleted at most `size` a call; the calls are counted. */
const table = (rows: number) => {
  let left = rows
  let calls = 0
  return {
    calls: () => calls,
    deleteChunk: (size: number) => () =>
      Effect.sync(() => {
        calls++
        const deleted = Math.min(size, left)
        left -= deleted
        return deleted
      })
  }
}

describe("ChunkedDelete.untilShort", () => {
  it.effect("deletes chunk after chunk until one comes back short, and answers the sum", () =>
    Effect.gen(function*() {
      const rows = table(2_500)
      assert.strictEqual(yield* ChunkedDelete.untilShort(1_000, rows.deleteChunk(1_000)), 2_500)
      assert.strictEqual(rows.calls(), 3)
    }))

  it.effect("after an exact multiple, stops at the empty chunk; with nothing to delete, after one", () =>
    Effect.gen(function*() {
      const exact = table(2_000)
      assert.strictEqual(yield* ChunkedDelete.untilShort(1_000, exact.deleteChunk(1_000)), 2_000)
      assert.strictEqual(exact.calls(), 3)
      const empty = table(0)
      assert.strictEqual(yield* ChunkedDelete.untilShort(1_000, empty.deleteChunk(1_000)), 0)
      assert.strictEqual(empty.calls(), 1)
    }))

  it.effect("stops at a chunk that fails, with its error", () =>
    Effect.gen(function*() {
      let calls = 0
      const error = yield* Effect.flip(
        ChunkedDelete.untilShort(10, () => ++calls < 3 ? Effect.succeed(10) : Effect.fail("locked"))
      )
      assert.strictEqual(error, "locked")
      assert.strictEqual(calls, 3)
    }))
})
