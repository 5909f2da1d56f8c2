import { afterEach, assert, beforeEach, describe, it, vi } from "@effect/vitest"
import { type LogLine, Logs } from "@switchyard/observability"
import { Context, Effect, Exit, Layer, Scope } from "effect"

const time = new Date("2026-11-25T12:00:00.000Z")

const event = (level: LogLine.Level, message: string, time_ = time): LogLine.LogEvent => ({
  time: time_,
  level,
  message,
  fields: { n: 1 }
})

/** A Logs at `info` whose writes are kept, one string a write, closed by closing `scope`. */
const capture = (scope: Scope.Closeable) =>
  Effect.gen(function*() {
    const writes: Array<string> = []
    const context = yield* Layer.buildWithScope(
      Logs.Logs.layer({ format: "json", level: "info" }, (text) => writes.push(text)),
      scope
    )
    return { logs: Context.get(context, Logs.Logs), writes }
  })

const messages = (writes: ReadonlyArray<string>) =>
  writes.join("").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line).msg)

// the line buffer waits on node's timers: the test moves them on, rather than sleeping
beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe("Logs", () => {
  it.effect("writes info lines together, in order, 10 ms after the first; a warning at the end of its turn, with every line before it", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { logs, writes } = yield* capture(scope)
      logs.write(event("info", "a"))
      logs.write(event("debug", "below the level"))
      logs.write(event("info", "b"))
      vi.advanceTimersByTime(9)
      assert.deepStrictEqual(writes, [])
      vi.advanceTimersByTime(1)
      assert.deepStrictEqual(writes.map((write) => messages([write])), [["a", "b"]])
      logs.write(event("info", "c"))
      logs.write(event("warn", "d"))
      vi.runOnlyPendingTimers()
      assert.deepStrictEqual(writes.map((write) => messages([write])), [["a", "b"], ["c", "d"]])
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("writes 512 waiting events at once, and what waits when the layer closes", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { logs, writes } = yield* capture(scope)
      for (let i = 0; i < 512; i++) logs.write(event("info", `line ${i}`))
      assert.strictEqual(writes.length, 1)
      assert.strictEqual(messages(writes).length, 512)
      logs.write(event("info", "last"))
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(messages(writes.slice(1)), ["last"])
    }))

  it.effect("an event that cannot be formatted (an invalid date) is written as an error saying so, and the lines around it as they are", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const { logs, writes } = yield* capture(scope)
      logs.write(event("info", "before"))
      logs.write(event("info", "broken", new Date(Number.NaN)))
      logs.write(event("info", "after"))
      vi.advanceTimersByTime(10)
      const lines = writes.join("").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      assert.deepStrictEqual(lines.map((line) => line.msg), ["before", "a log event could not be written", "after"])
      assert.strictEqual(lines[1].level, "error")
      assert.strictEqual(lines[1].event_message, "broken")
      assert.strictEqual(lines[1].reason, "Invalid time value")
      yield* Scope.close(scope, Exit.void)
    }))
})
