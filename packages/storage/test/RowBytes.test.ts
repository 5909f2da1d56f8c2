/**
 * Rows as bytes read back as they were written: any string (non-ASCII, lone surrogates, empty),
 * any number (NaN, ±Infinity, -0), null, texts repeated within a column and across columns, and
 * values left for later taken in order; bytes that are not such rows are refused, never misread.
 */
import { assert, describe, it } from "@effect/vitest"
import { RowBytes } from "@switchyard/storage"
import * as fc from "fast-check"

type Cell = RowBytes.Value | { readonly later: RowBytes.Value }

const written = (width: number, rows: ReadonlyArray<ReadonlyArray<Cell>>, capacity?: number) => {
  const writer = new RowBytes.RowWriter(width, capacity)
  const later: Array<RowBytes.Value> = []
  for (const row of rows) {
    for (const cell of row) {
      if (cell !== null && typeof cell === "object") {
        writer.later()
        later.push(cell.later)
      } else {
        writer.value(cell)
      }
    }
  }
  return { writer, later }
}

const readBack = (writer: RowBytes.RowWriter, later: ReadonlyArray<RowBytes.Value>) => {
  const rows: Array<Array<RowBytes.Value>> = []
  RowBytes.readRows(writer.bytes, writer.length, writer.width, later, (values) => rows.push([...values]))
  return rows
}

const plain = (cell: Cell): RowBytes.Value => cell !== null && typeof cell === "object" ? cell.later : cell

// a few texts that repeat, so that most columns meet the text they had last, and any other
const value: fc.Arbitrary<RowBytes.Value> = fc.oneof(
  fc.constant(null),
  fc.double(),
  fc.integer(),
  fc.constantFrom("openai", "gpt-4o-mini", "ws-1", ""),
  fc.string({ unit: "binary" }),
  fc.string({ unit: "grapheme" })
)
const cell: fc.Arbitrary<Cell> = fc.oneof(
  { arbitrary: value, weight: 4 },
  { arbitrary: value.map((later) => ({ later })), weight: 1 }
)

describe("RowBytes", () => {
  it("reads back every row as it was written", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).chain((width) =>
          fc.tuple(
            fc.constant(width),
            fc.array(fc.array(cell, { minLength: width, maxLength: width }), { maxLength: 30 })
          )
        ),
        // a small buffer to start with, so that writing grows it
        fc.integer({ min: 1, max: 64 }),
        ([width, rows], capacity) => {
          const { later, writer } = written(width, rows, capacity)
          assert.strictEqual(writer.rows, rows.length)
          assert.deepStrictEqual(readBack(writer, later), rows.map((row) => row.map(plain)))
        }
      ),
      { numRuns: 2_000 }
    )
  })

  it("writes a text equal to its column's last as its tag alone", () => {
    const once = written(2, [["a model name", 1]]).writer.length
    const twice = written(2, [["a model name", 1], ["a model name", 2]]).writer.length
    // the second row: one tag for the text, nine bytes for the number
    assert.strictEqual(twice - once, 10)
    // the same text in another column is written again
    const { later, writer } = written(2, [["x", "y"], ["y", "x"], ["y", "x"]])
    assert.deepStrictEqual(readBack(writer, later), [["x", "y"], ["y", "x"], ["y", "x"]])
  })

  it("drops a row left half-written, keeping the rows before it and reading the next ones right", () => {
    const writer = new RowBytes.RowWriter(3)
    for (const value of ["kept", "same", 1]) writer.value(value)
    // a row that fails after two of its texts, one of them new to its column
    writer.value("kept")
    writer.value("never read")
    writer.dropPartialRow()
    for (const value of ["kept", "never read", 2]) writer.value(value)
    for (const value of ["kept", "same", 3]) writer.value(value)
    assert.strictEqual(writer.rows, 3)
    assert.deepStrictEqual(readBack(writer, []), [["kept", "same", 1], ["kept", "never read", 2], ["kept", "same", 3]])
  })

  it("refuses bytes that are not rows of its width", () => {
    const { writer } = written(2, [["abc", 1]])
    const read = (bytes: Uint8Array, length: number, width = 2, later: ReadonlyArray<RowBytes.Value> = []) => () =>
      RowBytes.readRows(bytes, length, width, later, () => {})
    assert.throws(read(writer.bytes, writer.length - 1), /in the middle of a value/)
    assert.throws(read(writer.bytes, writer.length, 3), /the last row has 2 of its 3 values/)
    assert.throws(read(Uint8Array.of(9), 1), /unknown tag 9 at byte 0/)
    // a repeated text with none before it, a later value with none handed over
    assert.throws(read(Uint8Array.of(3), 1, 1), /has no text before it/)
    assert.throws(read(Uint8Array.of(4), 1, 1), /more values left for later than the 0 handed over/)
    assert.throws(() => new RowBytes.RowWriter(0), /whole number from 1/)
  })
})
