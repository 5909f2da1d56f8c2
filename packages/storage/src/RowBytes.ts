/**
 * Rows of column values as bytes: written on the event loop as each row is known
 * ({@link RowWriter}), handed to the SQLite writer thread whole (transferred, not copied), and read
 * back there ({@link readRows}) into the values it binds.
 *
 * Why bytes: a request log row kept as values until its batch is written (up to a second) outlived
 * V8's young generation, with every string and number in it: ~500 bytes a request were promoted to
 * the old generation, whose marking and sweeping then took the garbage collector's threads as much
 * CPU again as the row's own work; and the batch was copied to the thread value by value
 * (structured clone, ~8,000 instructions a row). Written as bytes, a row leaves nothing behind on
 * the heap, and the thread is handed the batch's buffer itself.
 *
 * A value is a tag byte and what follows it: nothing for a null; a 64-bit float for a number; for
 * a text, its length (32 bits) and its characters (one byte each when all are ASCII, else its UTF-16
 * code units, the length's top bit set, so any string, a lone surrogate included, reads back as it
 * was). A text equal to the one last written in its column is only its tag: most of a request's
 * texts (its workspace, route, provider, model) are the last request's. A value left for later is
 * its tag alone: it is read from the values handed over beside the bytes, in order (bodies and
 * results still being noted when the row was written). This module imports only node's `Buffer`:
 * the thread loads it.
 */

/** A value SQLite binds as it is. */
export type Value = string | number | null

const NULL = 0
const NUMBER = 1
const TEXT = 2
const SAME_TEXT = 3
const LATER = 4

/** The top bit of a text's length: its characters are UTF-16 code units, not ASCII bytes. */
const UTF16 = 0x8000_0000

/** A `Buffer` over the whole of `bytes`' memory (never node's shared pool), so it can be transferred. */
const ownBuffer = (bytes: ArrayBuffer): Buffer<ArrayBuffer> => Buffer.from(bytes)

/** Rows of `width` values, written one value after another; see the module's comment. */
export class RowWriter {
  /** The bytes written (the first {@link length}) and room for more. */
  bytes: Buffer<ArrayBuffer>
  length = 0
  /** Rows complete. */
  rows = 0
  private view: DataView
  private column = 0
  /** Where the row being written began. */
  private rowStart = 0
  /** The text last written in each column. */
  private readonly lastTexts: Array<string | undefined>

  readonly width: number

  constructor(width: number, capacity = 16 * 1024) {
    this.width = width
    if (!Number.isInteger(width) || width < 1) {
      throw new RangeError(`a row's width must be a whole number from 1, not ${width}`)
    }
    this.bytes = ownBuffer(new ArrayBuffer(capacity))
    this.view = new DataView(this.bytes.buffer)
    this.lastTexts = Array.from({ length: width }, () => undefined)
  }

  /** Room for `more` bytes after what is written (the buffer doubled and copied when short). */
  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return
    const grown = ownBuffer(new ArrayBuffer(Math.max(this.bytes.length * 2, this.length + more)))
    this.bytes.copy(grown, 0, 0, this.length)
    this.bytes = grown
    this.view = new DataView(grown.buffer)
  }

  private tag(tag: number): void {
    this.reserve(1)
    this.bytes[this.length++] = tag
  }

  /** The next column's value (the row is complete after its last column's). */
  value(value: Value): void {
    if (value === null) this.tag(NULL)
    else if (typeof value === "number") this.number(value)
    else if (typeof value === "string") this.text(value)
    // a caller past the types (a bigint, an object) is refused before anything of it is written
    else throw new TypeError(`a column's value is a string, a number or null, not ${typeof value}`)
    this.next()
  }

  /**
   * Drops a row begun but not completed (its writer failed half-way), so that the rows before it
   * stay whole. The texts written so far are forgotten: the next of each column is written in full.
   */
  dropPartialRow(): void {
    if (this.column === 0) return
    this.length = this.rowStart
    this.column = 0
    this.lastTexts.fill(undefined)
  }

  /** The next column's value is handed over when the rows are, in order with the other later ones. */
  later(): void {
    this.tag(LATER)
    this.next()
  }

  private next(): void {
    if (++this.column === this.width) {
      this.column = 0
      this.rows++
      this.rowStart = this.length
    }
  }

  private number(value: number): void {
    this.reserve(9)
    this.bytes[this.length++] = NUMBER
    this.view.setFloat64(this.length, value, true)
    this.length += 8
  }

  /**
   * Written natively, one call a text (a loop over `charCodeAt` reads the many string
   * representations V8 has through a megamorphic inline cache; see observability's SpanRecords).
   */
  private text(text: string): void {
    if (this.lastTexts[this.column] === text) return this.tag(SAME_TEXT)
    this.lastTexts[this.column] = text
    // a UTF-16 unit is at most 3 bytes of UTF-8; ASCII is 1, so as many bytes as units means ASCII
    this.reserve(5 + text.length * 3)
    this.bytes[this.length] = TEXT
    const start = this.length + 5
    const written = this.bytes.write(text, start, "utf8")
    if (written === text.length) {
      this.view.setUint32(this.length + 1, written, true)
      this.length = start + written
      return
    }
    this.view.setUint32(this.length + 1, (text.length * 2) | UTF16, true)
    this.length = start + this.bytes.write(text, start, "utf16le")
  }
}

/**
 * Reads the first `length` of `bytes` as rows of `width` values, calling `row` with each (one array,
 * written over for the next row: copy what you keep), the values left for later taken from `later`
 * in order. Throws a `RangeError` for bytes that are not such rows.
 */
export const readRows = (
  bytes: Uint8Array,
  length: number,
  width: number,
  later: ReadonlyArray<Value>,
  row: (values: Array<Value>) => void
): void => {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, length)
  const view = new DataView(bytes.buffer, bytes.byteOffset, length)
  const values: Array<Value> = Array.from({ length: width }, () => null)
  const lastTexts: Array<string | null> = Array.from({ length: width }, () => null)
  let at = 0
  let column = 0
  let laterAt = 0
  const need = (count: number) => {
    if (at + count > length) throw new RangeError(`row bytes end in the middle of a value at byte ${at}`)
  }
  while (at < length) {
    const tag = buffer[at++]
    let value: Value
    if (tag === NULL) value = null
    else if (tag === NUMBER) {
      need(8)
      value = view.getFloat64(at, true)
      at += 8
    } else if (tag === TEXT) {
      need(4)
      const header = view.getUint32(at, true)
      at += 4
      const size = header & ~UTF16
      need(size)
      value = buffer.toString((header & UTF16) === 0 ? "latin1" : "utf16le", at, at + size)
      at += size
      lastTexts[column] = value
    } else if (tag === SAME_TEXT) {
      value = lastTexts[column] ?? null
      if (value === null) throw new RangeError(`a repeated text at byte ${at - 1} has no text before it in its column`)
    } else if (tag === LATER) {
      if (laterAt >= later.length) {
        throw new RangeError(`more values left for later than the ${later.length} handed over`)
      }
      value = later[laterAt++] ?? null
    } else {
      throw new RangeError(`unknown tag ${tag} at byte ${at - 1}`)
    }
    values[column] = value
    if (++column === width) {
      column = 0
      row(values)
    }
  }
  if (column !== 0) throw new RangeError(`the last row has ${column} of its ${width} values`)
}
