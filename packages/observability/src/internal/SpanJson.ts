/**
 * The OTLP/JSON of a batch of span records (`SpanRecords`), as effect's `OtlpTracer` would write
 * the spans: written by the span thread, straight from the records' bytes where it can (ASCII text
 * that needs no escape is copied as it is; a key or a text seen before in the batch is its number).
 * This module imports nothing of the gateway and no `effect`: the thread loads it alone.
 */
import { fragment, type JsonBytes } from "./JsonBytes.ts"
import { FALSE, JSON_VALUE, kinds, NEW_TEXT, ownBuffer, STRING, TRUE, UNNUMBERED_STRING, UTF16 } from "./SpanRecords.ts"

/** Values remembered per attribute name, at most; more are written each time. */
const MAX_VALUES = 64

/** OTLP's `Span.SpanKind` numbers, each with the fields around it. */
const kindThenStart: ReadonlyArray<Uint8Array> = kinds.map((_, i) =>
  fragment(`","kind":${i + 1},"startTimeUnixNano":"`)
)
const traceIdStart = fragment(`{"traceId":"`)
const spanIdStart = fragment(`","spanId":"`)
const parentSpanIdStart = fragment(`","parentSpanId":"`)
const nameStart = fragment(`","name":"`)
const endTimeStart = fragment(`","endTimeUnixNano":"`)
const attributesStart = fragment(`","attributes":[`)
const succeeded = fragment(`],"status":{"code":1}}`)
const stringValueEnd = fragment(`"}}`)
const intValueEnd = fragment(`}}`)
const trueValue = fragment(`{"boolValue":true}}`)
const falseValue = fragment(`{"boolValue":false}}`)
const COMMA = 0x2c
const CLOSE = 0x7d
const QUOTE = 0x22
const BACKSLASH = 0x5c
const ZERO = 0x30

/**
 * Per attribute name (the names are few and the same on every span): `{"key":…,"value":`, alone
 * and with the start of a string value and of an integer one; and the whole attribute for each
 * integer seen twice, as many repeat from request to request (the status, the retries): a value
 * seen before is then one copy. A value never repeated (a token count) is written.
 */
class KeyBytes {
  readonly key: Uint8Array
  readonly stringKey: Uint8Array
  readonly intKey: Uint8Array
  private readonly start: string
  /** A value seen once maps to `null`; seen again, to its whole attribute's bytes. */
  private readonly values = new Map<number, Uint8Array | null>()

  constructor(key: string) {
    this.start = `{"key":${JSON.stringify(key)},"value":`
    this.key = fragment(this.start)
    this.stringKey = fragment(`${this.start}{"stringValue":"`)
    this.intKey = fragment(`${this.start}{"intValue":`)
  }

  /** The attribute with `value`, a safe integer, as bytes, if seen before. */
  repeated(value: number): Uint8Array | undefined {
    const bytes = this.values.get(value)
    if (bytes !== undefined && bytes !== null) return bytes
    if (bytes === null) {
      const whole = fragment(`${this.start}{"intValue":${value}}}`)
      this.values.set(value, whole)
      return whole
    }
    if (this.values.size < MAX_VALUES) this.values.set(value, null)
    return undefined
  }
}
const keys = new Map<string, KeyBytes>()
const keyBytes = (key: string): KeyBytes => {
  let bytes = keys.get(key)
  if (bytes === undefined) {
    bytes = new KeyBytes(key)
    // bounded: a name made per request (none of ours is) is written, not remembered
    if (keys.size < 1_000) keys.set(key, bytes)
  }
  return bytes
}

/** Reads what `SpanRecords` wrote. */
class Reader {
  at = 0
  readonly length: number
  private readonly bytes: Buffer<ArrayBuffer>
  private readonly view: DataView

  constructor(bytes: Uint8Array<ArrayBuffer>, length: number) {
    this.bytes = ownBuffer(bytes)
    this.length = length
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  /** Where each of the batch's texts was written, by number. */
  private readonly texts: Array<number> = []
  /** The texts read as attribute keys, by number. */
  private readonly keys: Array<KeyBytes | undefined> = []
  /** Whether the text read last was new: written there, not a number for one before. */
  private newText = false

  byte(): number {
    return this.bytes[this.at++] ?? 0
  }

  /** The next text, an attribute's key, as its bytes. */
  key(): KeyBytes {
    const number = this.textNumber()
    const known = this.keys[number]
    if (known !== undefined) return known
    const resume = this.at
    this.at = this.texts[number] ?? this.at
    const key = keyBytes(this.string())
    if (number >= 0) this.keys[number] = key
    if (!this.newText) this.at = resume
    return key
  }

  /**
   * The next text's number; a new text's is the number it takes (-1 past the last a batch holds),
   * and {@link newText} is set. The reader numbers texts as `SpanRecords.text` does.
   */
  private textNumber(): number {
    const number = this.view.getUint16(this.at, true)
    this.at += 2
    this.newText = number === NEW_TEXT
    if (!this.newText) return number
    if (this.texts.length === NEW_TEXT) return -1
    this.texts.push(this.at)
    return this.texts.length - 1
  }

  uint32(): number {
    const value = this.view.getUint32(this.at, true)
    this.at += 4
    return value
  }

  float64(): number {
    const value = this.view.getFloat64(this.at, true)
    this.at += 8
    return value
  }

  time(): string {
    const value = this.view.getBigUint64(this.at, true)
    this.at += 8
    return String(value)
  }

  /**
   * The next string written into `out` as the inside of a JSON string: ASCII that needs no escape
   * copied byte for byte, anything else through `JsonBytes.chars`. Gives its length in characters.
   */
  copyTo(out: JsonBytes): number {
    const header = this.view.getUint32(this.at, true)
    const length = header & ~UTF16
    if (header & UTF16) {
      const text = this.string()
      out.chars(text)
      return text.length
    }
    const start = this.at + 4
    const end = start + length
    const bytes = this.bytes
    for (let i = start; i < end; i++) {
      const code = bytes[i] ?? 0
      if (code < 0x20 || code === QUOTE || code === BACKSLASH) {
        const text = this.string()
        out.chars(text)
        return text.length
      }
    }
    out.reserve(length)
    out.length += bytes.copy(out.bytes, out.length, start, end)
    this.at = end
    return length
  }

  /** The next text (see `SpanRecords.text`) written into `out` as `copyTo` writes a string. */
  copyTextTo(out: JsonBytes): number {
    const number = this.textNumber()
    if (this.newText) return this.copyTo(out)
    const resume = this.at
    this.at = this.texts[number] ?? this.at
    const length = this.copyTo(out)
    this.at = resume
    return length
  }

  string(): string {
    const header = this.uint32()
    const length = header & ~UTF16
    const text = this.bytes.toString(header & UTF16 ? "utf16le" : "latin1", this.at, this.at + length)
    this.at += length
    return text
  }
}

/** One attribute, `{"key":…,"value":…}`, as `records` holds it next. */
const writeAttribute = (records: Reader, out: JsonBytes): void => {
  const bytes = records.key()
  const tag = records.byte()
  if (tag === TRUE || tag === FALSE) {
    out.raw(bytes.key)
    return out.raw(tag === TRUE ? trueValue : falseValue)
  }
  if (tag === JSON_VALUE) {
    out.raw(bytes.key)
    out.json(records.string())
    return out.byte(CLOSE)
  }
  if (tag === STRING || tag === UNNUMBERED_STRING) {
    out.raw(bytes.stringKey)
    if (tag === STRING) records.copyTextTo(out)
    else records.copyTo(out)
    return out.raw(stringValueEnd)
  }
  const value = records.float64()
  const whole = bytes.repeated(value)
  if (whole !== undefined) return out.raw(whole)
  out.raw(bytes.intKey)
  out.ascii(String(value))
  out.raw(intValueEnd)
}

/** Moves what was written from `at` on `count` bytes on, and fills the gap with zeros (digits). */
const padFront = (out: JsonBytes, at: number, count: number): void => {
  out.reserve(count)
  out.bytes.copy(out.bytes, at + count, at, out.length)
  out.bytes.fill(ZERO, at, at + count)
  out.length += count
}

/** Writes the first `length` bytes of span records as OTLP/JSON spans separated by commas; gives how many. */
export const writeSpans = (bytes: Uint8Array<ArrayBuffer>, length: number, out: JsonBytes): number => {
  const records = new Reader(bytes, length)
  let spans = 0
  while (records.at < records.length) {
    if (spans > 0) out.byte(COMMA)
    out.raw(traceIdStart)
    // a trace id shorter than 32 hex digits (effect's own ids may be) is padded with zeros in front
    const traceIdAt = out.length
    const traceIdLength = records.copyTo(out)
    if (traceIdLength < 32) padFront(out, traceIdAt, 32 - traceIdLength)
    out.raw(spanIdStart)
    records.copyTo(out)
    const parentAt = out.length
    out.raw(parentSpanIdStart)
    // a root has no parent: the field is taken back out
    if (records.copyTo(out) === 0) out.length = parentAt
    out.raw(nameStart)
    records.copyTextTo(out)
    out.raw(kindThenStart[records.byte()] ?? kindThenStart[0] ?? traceIdStart)
    out.ascii(records.time())
    out.raw(endTimeStart)
    out.ascii(records.time())
    out.raw(attributesStart)
    const attributes = records.uint32()
    for (let i = 0; i < attributes; i++) {
      if (i > 0) out.byte(COMMA)
      writeAttribute(records, out)
    }
    if (records.byte() === 0) out.raw(succeeded)
    else out.json(records.string())
    spans++
  }
  return spans
}
