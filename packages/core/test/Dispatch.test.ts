import { assert, describe, it } from "@effect/vitest"
import { Dispatch, GatewayResponse } from "@switchyard/core"
import { Effect } from "effect"
import { bodyOf, request } from "./support/Fakes.ts"

describe("Dispatch.compose", () => {
  it.effect("runs the first middleware outermost, around the ones after it", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const traced = (name: string): Dispatch.Middleware => (next) => (req) =>
        Effect.suspend(() => {
          log.push(`${name} in`)
          return Effect.tap(next(req), () => Effect.sync(() => log.push(`${name} out`)))
        })
      const dispatch: Dispatch.Dispatch = () =>
        Effect.sync(() => {
          log.push("dispatch")
          return GatewayResponse.json({})
        })
      yield* Dispatch.compose(dispatch, traced("a"), traced("b"), traced("c"))(request())
      assert.deepStrictEqual(log, ["a in", "b in", "c in", "dispatch", "c out", "b out", "a out"])
    }))

  it("returns the dispatch itself when there is no middleware", () => {
    const dispatch: Dispatch.Dispatch = () => Effect.succeed(GatewayResponse.json({}))
    assert.strictEqual(Dispatch.compose(dispatch), dispatch)
  })

  it.effect("lets an outer middleware answer without calling the ones inside it", () =>
    Effect.gen(function*() {
      let calls = 0
      const dispatch: Dispatch.Dispatch = () =>
        Effect.sync(() => {
          calls += 1
          return GatewayResponse.json({ from: "upstream" })
        })
      const cached: Dispatch.Middleware = () => () => Effect.succeed(GatewayResponse.json({ from: "cache" }))
      const response = yield* Dispatch.compose(dispatch, cached)(request())
      assert.deepStrictEqual(bodyOf(response), { from: "cache" })
      assert.strictEqual(calls, 0)
    }))
})
