import { assert, describe, it } from "@effect/vitest"
import { TargetConcurrency } from "@switchyard/batches"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

const openai = TargetConcurrency.targetOf("ws1", { "x-gateway-provider": "openai", authorization: "Bearer sk-a" })

/** Counts the calls of a target running at once, and the most there were. */
const counter = () => {
  const state = { now: 0, most: 0, started: 0 }
  const call = (gate: Deferred.Deferred<void>) =>
    Effect.gen(function*() {
      state.now += 1
      state.started += 1
      state.most = Math.max(state.most, state.now)
      yield* Deferred.await(gate)
      state.now -= 1
    })
  return { state, call }
}

describe("TargetConcurrency", () => {
  it("names one target per provider and credentials, apart from metadata; stored names per workspace", () => {
    const same = TargetConcurrency.targetOf("ws2", {
      "x-gateway-provider": "openai",
      authorization: "Bearer sk-a",
      "x-gateway-metadata": "{\"team\":\"x\"}"
    })
    assert.strictEqual(same, openai)
    assert.notStrictEqual(
      TargetConcurrency.targetOf("ws1", { "x-gateway-provider": "openai", authorization: "Bearer sk-b" }),
      openai
    )
    assert.notStrictEqual(
      TargetConcurrency.targetOf("ws1", { "x-gateway-provider": "groq", authorization: "Bearer sk-a" }),
      openai
    )
    const virtual = (workspace: string) => TargetConcurrency.targetOf(workspace, { "x-gateway-virtual-key": "vk-1" })
    assert.notStrictEqual(virtual("ws1"), virtual("ws2"))
    const stored = (workspace: string) => TargetConcurrency.targetOf(workspace, { "x-gateway-config": "pc-1" })
    assert.notStrictEqual(stored("ws1"), stored("ws2"))
    const inline = (workspace: string) =>
      TargetConcurrency.targetOf(workspace, { "x-gateway-config": "{\"provider\":\"openai\"}" })
    assert.strictEqual(inline("ws1"), inline("ws2"))
  })

  it.effect("lets at most the bound of one target's calls run at once, and other targets beside them", () =>
    Effect.gen(function*() {
      const targets = yield* TargetConcurrency.make(2)
      const gate = yield* Deferred.make<void>()
      const a = counter()
      const b = counter()
      const other = TargetConcurrency.targetOf("ws1", { "x-gateway-provider": "groq", authorization: "Bearer g" })
      const fibers = yield* Effect.forEach(
        [
          ...Array.from({ length: 5 }, () => targets.run(openai, a.call(gate))),
          ...Array.from({ length: 3 }, () => targets.run(other, b.call(gate)))
        ],
        (call) => Effect.forkChild(call)
      )
      yield* Effect.yieldNow
      assert.deepStrictEqual([a.state.now, b.state.now], [2, 2])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(fibers)
      assert.deepStrictEqual([a.state.started, a.state.most, b.state.started, b.state.most], [5, 2, 3, 2])
    }))

  it.effect("a 429's pause holds the target's next calls for its seconds, and no other target's", () =>
    Effect.gen(function*() {
      const targets = yield* TargetConcurrency.make(4)
      const other = TargetConcurrency.targetOf("ws1", { "x-gateway-provider": "groq", authorization: "Bearer g" })
      yield* targets.slowDown(openai, 5)
      // a shorter pause asked later does not shorten it
      yield* targets.slowDown(openai, 1)
      const started: Array<string> = []
      const paused = yield* Effect.forkChild(targets.run(openai, Effect.sync(() => started.push("openai"))))
      const free = yield* Effect.forkChild(targets.run(other, Effect.sync(() => started.push("groq"))))
      yield* Fiber.join(free)
      assert.deepStrictEqual(started, ["groq"])
      yield* TestClock.adjust("4999 millis")
      assert.deepStrictEqual(started, ["groq"])
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(paused)
      assert.deepStrictEqual(started, ["groq", "openai"])
    }))

  it.effect("a pause set while calls wait for a slot holds them too", () =>
    Effect.gen(function*() {
      const targets = yield* TargetConcurrency.make(1)
      const gate = yield* Deferred.make<void>()
      const started: Array<number> = []
      const first = yield* Effect.forkChild(targets.run(openai, Deferred.await(gate)))
      const second = yield* Effect.forkChild(targets.run(openai, Effect.sync(() => started.push(2))))
      yield* Effect.yieldNow
      // the running call got a 429 asking for 3 s
      yield* targets.slowDown(openai, 3)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* TestClock.adjust("2 seconds")
      assert.deepStrictEqual(started, [])
      yield* TestClock.adjust("1 seconds")
      yield* Fiber.join(second)
      assert.deepStrictEqual(started, [2])
    }))
})
