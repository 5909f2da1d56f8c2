import { assert, describe, it } from "@effect/vitest"
import { ListQuery } from "@switchyard/protocol"
import { Effect } from "effect"

describe("ListQuery", () => {
  it.effect("defaults limit to 20 and order to desc", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* ListQuery.decode({}), { limit: 20, order: "desc" })
    }))
  it.effect("accepts limit 1 and 100 and a cursor", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* ListQuery.decode({ limit: "1" })).limit, 1)
      assert.deepStrictEqual(yield* ListQuery.decode({ limit: "100", order: "asc", after: "step_1" }), {
        limit: 100,
        order: "asc",
        after: "step_1"
      })
    }))
  it.effect("rejects limit 0 and 101", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        (yield* Effect.flip(ListQuery.decode({ limit: "0" }))).message,
        "limit: must be between 1 and 100 (got 0)"
      )
      assert.strictEqual(
        (yield* Effect.flip(ListQuery.decode({ limit: "101" }))).message,
        "limit: must be between 1 and 100 (got 101)"
      )
    }))
  it.effect("rejects another order", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Effect.flip(ListQuery.decode({ order: "up" }))).param, "order")
    }))
})
