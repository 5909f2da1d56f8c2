/**
 * Batches that fill as records come: a batch joins the full ones at its size, the oldest full one
 * is taken first, then the one being filled however few it holds; past the limit no batch is
 * offered; the latch is open exactly while a full batch waits; a new batch starts as large as the
 * last full one needed.
 */
import { assert, describe, it } from "@effect/vitest"
import { FillingBatches } from "@switchyard/observability"

class Lines {
  count = 0
  length = 0
  readonly lines: Array<string> = []
  readonly startedAt: number
  constructor(startedAt: number) {
    this.startedAt = startedAt
  }
}

const filled = (batchSize: number, limit: number) => {
  const capacities: Array<number> = []
  const queue = new FillingBatches.FillingBatches({
    batchSize,
    limit,
    make: (capacity) => {
      capacities.push(capacity)
      return new Lines(capacity)
    },
    capacity: 100
  })
  const add = (line: string): boolean => {
    const batch = queue.filling()
    if (batch === undefined) return false
    batch.lines.push(line)
    batch.count++
    batch.length += 80
    queue.added()
    return true
  }
  return { add, capacities, queue }
}

describe("FillingBatches", () => {
  it("fills batches of its size, hands out the oldest first, then the one being filled", () => {
    const { add, capacities, queue } = filled(2, 100)
    for (const line of ["a", "b", "c", "d", "e"]) assert.isTrue(add(line))
    assert.strictEqual(queue.waiting, 5)
    assert.strictEqual(queue.batches, 3)
    assert.isTrue(queue.hasFull)
    assert.deepStrictEqual(queue.take()?.lines, ["a", "b"])
    assert.deepStrictEqual(queue.take()?.lines, ["c", "d"])
    assert.isFalse(queue.hasFull)
    assert.deepStrictEqual(queue.take()?.lines, ["e"])
    assert.isUndefined(queue.take())
    assert.strictEqual(queue.waiting, 0)
    // the first batch at the given capacity, the next ones at what a full one took and an eighth more
    assert.deepStrictEqual(capacities, [100, 180, 180])
  })

  it("offers no batch past its limit until one is taken", () => {
    const { add, queue } = filled(3, 4)
    for (const line of ["a", "b", "c", "d"]) assert.isTrue(add(line))
    assert.isFalse(add("e"))
    assert.strictEqual(queue.waiting, 4)
    queue.take()
    assert.isTrue(add("f"))
    assert.deepStrictEqual(queue.take()?.lines, ["d", "f"])
  })

  it("keeps its latch open while a full batch waits, and only then", () => {
    const { add, queue } = filled(2, 100)
    add("a")
    assert.isFalse(queue.fullWaiting.isOpen())
    add("b")
    add("c")
    add("d")
    assert.isTrue(queue.fullWaiting.isOpen())
    queue.take()
    assert.isTrue(queue.fullWaiting.isOpen())
    queue.take()
    assert.isFalse(queue.fullWaiting.isOpen())
  })
})
