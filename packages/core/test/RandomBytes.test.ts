import { assert, describe, it } from "@effect/vitest"
import { RandomBytes } from "@switchyard/core"

describe("RandomBytes", () => {
  it("takes as many bytes as asked, different each time, across pool refills", () => {
    const seen = new Set<string>()
    // 600 draws of 16 bytes need three pools of 4096
    for (let i = 0; i < 600; i++) {
      const bytes = RandomBytes.take(16)
      assert.strictEqual(bytes.length, 16)
      seen.add(Buffer.from(bytes).toString("hex"))
    }
    assert.strictEqual(seen.size, 600)
  })

  it("writes bytes as hex, two characters a byte, each draw its own bytes, across pool refills and between views", () => {
    assert.match(RandomBytes.hex(8), /^[0-9a-f]{16}$/)
    assert.notStrictEqual(RandomBytes.hex(10), RandomBytes.hex(10))
    const seen = new Set<string>()
    // draws of hex and of views share the pool: 1,000 of 10 bytes and 500 of 16 need four pools
    for (let i = 0; i < 1_000; i++) {
      const text = RandomBytes.hex(10)
      assert.match(text, /^[0-9a-f]{20}$/)
      seen.add(text)
      if (i % 2 === 0) seen.add(Buffer.from(RandomBytes.take(16)).toString("hex"))
    }
    assert.strictEqual(seen.size, 1_500)
  })

  it("makes time-ordered ids: 32 hex characters that sort in the order they were made, never twice the same", () => {
    const ids = Array.from({ length: 2_000 }, () => RandomBytes.timeOrderedHex())
    for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/)
    assert.strictEqual(new Set(ids).size, ids.length)
    // within one millisecond the random part orders them, so only the time part must not go back
    const times = ids.map((id) => id.slice(0, 12))
    assert.deepStrictEqual(times, [...times].sort())
    assert.approximately(parseInt(ids[0]!.slice(0, 12), 16), Date.now(), 5_000)
  })
})
