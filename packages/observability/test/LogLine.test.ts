import { assert, describe, it } from "@effect/vitest"
import { LogLine } from "@switchyard/observability"
import fc from "fast-check"

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

  it("writes every line as JSON.stringify writes the whole record: any key, any string (lone surrogates, controls, quotes), any number, null, nested values", () => {
    const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) })
    const fixed = new Set(["time", "level", "msg", "cause", "toJSON", "__proto__"])
    const value = fc.oneof(
      anyText,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()))
    )
    const fields = fc.dictionary(fc.oneof(anyText, fc.constantFrom("0", "12", "1a", "status")), value).filter((
      record
    ) => Object.keys(record).every((key) => !fixed.has(key)))
    fc.assert(
      fc.property(fields, anyText, fc.option(anyText, { nil: undefined }), (record, message, cause) => {
        const expected: Record<string, unknown> = { time: "2026-11-24T12:00:00.000Z", level: "info", msg: message }
        for (const key in record) if (record[key] !== undefined) expected[key] = record[key]
        if (cause !== undefined) expected.cause = cause
        const line = LogLine.format({ time, level: "info", message, fields: record, cause }, "json")
        assert.strictEqual(line, JSON.stringify(expected))
      }),
      { numRuns: 2_000 }
    )
  })
})
