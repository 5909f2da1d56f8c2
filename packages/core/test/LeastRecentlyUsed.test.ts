import { assert, describe, it } from "@effect/vitest"
import { LeastRecentlyUsed } from "@switchyard/core"
import fc from "fast-check"

const SEED = 20_261_125

type Operation =
  | { readonly kind: "get"; readonly key: string }
  | { readonly kind: "set"; readonly key: string; readonly value: number }
  | { readonly kind: "delete"; readonly key: string }
  | { readonly kind: "clear" }

/** The plainest least-recently-used map: an array of entries, the most recent last. */
const model = (capacity: number) => {
  let entries: Array<readonly [string, number]> = []
  const take = (key: string) => {
    const at = entries.findIndex(([k]) => k === key)
    const found = at === -1 ? undefined : entries[at]
    if (at !== -1) entries.splice(at, 1)
    return found
  }
  return {
    get: (key: string) => {
      const found = take(key)
      if (found !== undefined) entries.push(found)
      return found?.[1]
    },
    set: (key: string, value: number) => {
      take(key)
      entries.push([key, value])
      if (entries.length > capacity) entries.shift()
    },
    delete: (key: string) => void take(key),
    clear: () => {
      entries = []
    },
    size: () => entries.length
  }
}

const key = fc.constantFrom("a", "b", "c", "d", "e")
const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: key.map((k) => ({ kind: "get" as const, key: k })) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), key, value: fc.integer() }) },
  { weight: 1, arbitrary: key.map((k) => ({ kind: "delete" as const, key: k })) },
  { weight: 1, arbitrary: fc.constant({ kind: "clear" as const }) }
)

describe("LeastRecentlyUsed", () => {
  it("forgets the entry read least recently, however often the newest is read again", () => {
    const lru = new LeastRecentlyUsed.LeastRecentlyUsed<string, number>(2)
    lru.set("a", 1)
    lru.set("b", 2)
    lru.get("a")
    lru.get("a")
    lru.set("c", 3)
    assert.strictEqual(lru.get("b"), undefined)
    assert.strictEqual(lru.get("a"), 1)
    assert.strictEqual(lru.get("c"), 3)
    // "c" is the newest again: a read of "a" then moves it, and "c" goes next
    lru.get("a")
    lru.set("d", 4)
    assert.strictEqual(lru.get("c"), undefined)
    assert.strictEqual(lru.get("a"), 1)
  })

  it("answers and forgets as the plainest least-recently-used map does, in any run of reads, writes, deletes and clears", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(operation, { minLength: 20, maxLength: 80 }),
        (capacity, operations) => {
          const lru = new LeastRecentlyUsed.LeastRecentlyUsed<string, number>(capacity)
          const expected = model(capacity)
          for (const op of operations) {
            if (op.kind === "get") assert.strictEqual(lru.get(op.key), expected.get(op.key))
            else if (op.kind === "set") {
              lru.set(op.key, op.value)
              expected.set(op.key, op.value)
            } else if (op.kind === "delete") {
              lru.delete(op.key)
              expected.delete(op.key)
            } else {
              lru.clear()
              expected.clear()
            }
            assert.strictEqual(lru.size, expected.size())
          }
        }
      ),
      { seed: SEED, numRuns: 300 }
    )
  })
})
