import { describe, expect, it } from "@effect/vitest"
import { JsonLimits } from "@switchyard/protocol"
import fc from "fast-check"

/** The nesting of a parsed value, the outermost object or array being level 1. */
const depthOf = (value: unknown): number =>
  typeof value === "object" && value !== null
    ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
    : 0

const nested = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`
const encoder = new TextEncoder()

describe("JsonLimits.exceedsDepth", () => {
  it("counts the outermost object or array as level 1", () => {
    expect(JsonLimits.exceedsDepth("1", 0)).toBe(false)
    expect(JsonLimits.exceedsDepth("[]", 0)).toBe(true)
    expect(JsonLimits.exceedsDepth("[]", 1)).toBe(false)
    expect(JsonLimits.exceedsDepth("{\"a\":[{}]}", 2)).toBe(true)
    expect(JsonLimits.exceedsDepth("{\"a\":[{}]}", 3)).toBe(false)
  })

  it("accepts 64 levels and refuses 65 by default", () => {
    expect(JsonLimits.exceedsDepth(nested(64))).toBe(false)
    expect(JsonLimits.exceedsDepth(nested(65))).toBe(true)
    expect(JsonLimits.exceedsDepth(nested(100_000, "{\"a\":", "}"))).toBe(true)
  })

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(JsonLimits.exceedsDepth(`["${"[".repeat(100)}"]`, 1)).toBe(false)
    expect(JsonLimits.exceedsDepth(`["\\"${"{".repeat(100)}\\\\"]`, 1)).toBe(false)
    expect(JsonLimits.exceedsDepth(`["\\\\", [[]]]`, 2)).toBe(true)
  })

  it("reads UTF-8 bytes as it reads text", () => {
    const text = `{"é${"[".repeat(10)}": [["✓"]]}`
    expect(JsonLimits.exceedsDepth(encoder.encode(text), 2)).toBe(true)
    expect(JsonLimits.exceedsDepth(encoder.encode(text), 3)).toBe(false)
  })

  it("agrees with the depth of any JSON value, as text and as bytes", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 14 }), (value, limit) => {
        const text = JSON.stringify(value)
        const expected = depthOf(value) > limit
        expect(JsonLimits.exceedsDepth(text, limit)).toBe(expected)
        expect(JsonLimits.exceedsDepth(encoder.encode(text), limit)).toBe(expected)
      }),
      { seed: 20261124, numRuns: 500 }
    )
  })
})
