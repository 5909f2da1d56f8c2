import { assert, describe, it } from "@effect/vitest"
import { LogLine } from "@switchyard/observability"

const time = new Date("2026-11-24T12:00:00.000Z")

describe("LogLine", () => {
  it("writes a JSON line with the time, level, message and each field present", () => {
    const line = LogLine.format(
      { time, level: "info", message: "request", fields: { status: 200, provider: "openai", model: undefined } },
      "json"
    )
    assert.deepStrictEqual(JSON.parse(line), {
      time: "2026-11-24T12:00:00.000Z",
      level: "info",
      msg: "request",
      status: 200,
      provider: "openai"
    })
  })

  it("writes a value JSON has no form for (a bigint) as text rather than losing the line", () => {
    const line = LogLine.format(
      { time, level: "warn", message: "big", fields: { tokens: 12345678901234567890n, nested: { n: 1n } } },
      "json"
    )
    assert.deepStrictEqual(JSON.parse(line), {
      time: "2026-11-24T12:00:00.000Z",
      level: "warn",
      msg: "big",
      tokens: "12345678901234567890",
      nested: { n: "1" }
    })
  })

  it("keeps the cause of an error event", () => {
    const line = LogLine.format({ time, level: "error", message: "failed", fields: {}, cause: "Error: boom" }, "json")
    assert.strictEqual(JSON.parse(line).cause, "Error: boom")
  })
})
