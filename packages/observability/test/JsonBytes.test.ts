import { assert, describe, it } from "@effect/vitest"
import { fragment, JsonBytes } from "../src/internal/JsonBytes.ts"

const written = (write: (out: JsonBytes) => void, capacity = 64) => {
  const out = new JsonBytes(capacity)
  write(out)
  return out.written().toString("utf8")
}

describe("JsonBytes", () => {
  it("writes a string as JSON.stringify does: ASCII as it is, escapes and any other character encoded", () => {
    const texts = ["plain", "", "quote \" and \\ back", "line\nbreak\t\u0001", "naïve ✓ 模型 😀", "lone \ud800 half"]
    for (const text of texts) assert.strictEqual(written((out) => out.string(text)), JSON.stringify(text), text)
  })

  it("writes fragments, bytes and digits in order, growing its buffer and keeping what it holds", () => {
    const long = "x".repeat(500)
    const json = written((out) => {
      out.raw(fragment("{\"a\":"))
      out.ascii(String(1234567890123n))
      out.raw(fragment(",\"b\":"))
      out.string(long)
      out.byte(0x7d)
    }, 8)
    assert.deepStrictEqual(JSON.parse(json), { a: 1234567890123, b: long })
  })
})
