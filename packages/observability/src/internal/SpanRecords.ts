/**
 * Ended spans as the span thread is handed them: a batch's spans as compact bytes, written on the
 * event loop as each span ends ({@link SpanRecords}), and read by the thread, which writes their
 * OTLP/JSON ({@link writeSpans}).
 *
 * A span is: trace id, span id, parent span id (empty for a root) (strings), name (a text); its kind (one
 * byte); start and end time (epoch nanoseconds, 64 bits); the number of its attributes (32 bits),
 * each a key (16 bits: its number in the batch, or 0xffff followed by the key, which takes the
 * next number), a tag (one byte) and its value (a text, a safe integer as a 64-bit float,
 * nothing for a boolean, or the value's OTLP JSON made where the span ended); last the tail: a
 * zero byte for a span that succeeded with no events or links, else a one and the JSON that closes
 * it (status, events, links), made where the span ended. A string is its length in bytes (32
 * bits) and its characters: one byte each when all are ASCII, else its UTF-16 code units as they
 * are (the length's top bit set), so that any text, a lone surrogate included, reads back as it was.
 * A text is 16 bits: its number in the batch when it was written before, or 0xffff followed by
 * the text as a string, which takes the next number.
 *
 * Why bytes: the batch's buffer is handed to the thread whole (transferred, not copied), and
 * writing a span into it costs the event loop a fraction of a microsecond: keeping the spans' own
 * values in an array until the export instead cost several, mostly the garbage collector's, and
 * copying them to the thread as many again. This module imports nothing of the gateway and no
 * `effect`: the thread loads it alone.
 */
import { fragment, type JsonBytes } from "./JsonBytes.ts"

/** The span kinds effect's `Tracer` names, in OTLP's `Span.SpanKind` order from 1. */
export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer"

const kinds: ReadonlyArray<SpanKind> = ["internal", "server", "client", "producer", "consumer"]
const kindNumbers: Readonly<Record<SpanKind, number>> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 }

/** The top bit of a string's length: its characters are UTF-16 code units, not ASCII bytes. */
const UTF16 = 0x8000_0000

/** A `Buffer` over the whole of `bytes`' memory (never node's shared pool). */
const ownBuffer = (bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Buffer<ArrayBuffer> =>
  bytes instanceof ArrayBuffer ? Buffer.from(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** An attribute key's number saying that the key itself follows, and takes the next number. */
const NEW_KEY = 0xffff
/** A text's number saying that the text itself follows, and takes the next number. */
const NEW_TEXT = 0xffff

/** An attribute value's tag. */
const STRING = 0
const INTEGER = 1
const TRUE = 2
const FALSE = 3
const JSON_VALUE = 4

/** Whether a value is written as itself; any other is written as its OTLP JSON, made by the caller. */
export const isPlainValue = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value))

/**
 * The spans of one batch, as bytes, with the number written. Its `bytes` grow (doubled, copied)
 * when a span does not fit; start it at the size a batch needed before, and it rarely does.
 */
export class SpanRecords {
  /** The bytes written and room for more: an `ArrayBuffer` of its own, so it can be transferred. */
  bytes: Buffer<ArrayBuffer>
  private view: DataView
  length = 0
  count = 0
  /** The keys written in this batch, by their number. */
  private readonly keys = new Map<string, number>()
  /** The texts written in this batch (the short ones, looked up again), by their number. */
  private readonly texts = new Map<string, number>()
  /** How many texts were written in this batch: the next one's number. */
  private textCount = 0

  /** Records in a new buffer of `capacity` bytes, or written over `bytes` (a buffer handed back). */
  constructor(capacityOrBytes: number | Uint8Array<ArrayBuffer>) {
    this.bytes = ownBuffer(typeof capacityOrBytes === "number" ? new ArrayBuffer(capacityOrBytes) : capacityOrBytes)
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength)
  }

  /** Takes back its bytes from the span thread, which was handed them (transferred) to read. */
  handedBack(bytes: Uint8Array<ArrayBuffer>): void {
    this.bytes = ownBuffer(bytes)
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength)
  }

  /** Room for `more` bytes after what is written. */
  private reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return
    const grown = ownBuffer(new ArrayBuffer(Math.max(this.bytes.length * 2, this.length + more)))
    this.bytes.copy(grown, 0, 0, this.length)
    this.bytes = grown
    this.view = new DataView(grown.buffer)
  }

  /**
   * Written natively, one call a string: a loop over `charCodeAt` here read the method through a
   * megamorphic inline cache (the strings a request carries come in many of V8's representations:
   * flat, concatenated, sliced, parsed, external), which cost a chat request ~60,000 instructions.
   */
  string(text: string): void {
    // a UTF-16 unit is at most 3 bytes of UTF-8; ASCII is 1, so as many bytes as units means ASCII
    this.reserve(4 + text.length * 3)
    const start = this.length + 4
    const written = this.bytes.write(text, start, "utf8")
    if (written === text.length) {
      this.view.setUint32(this.length, written, true)
      this.length = start + written
      return
    }
    this.view.setUint32(this.length, (text.length * 2) | UTF16, true)
    this.length = start + this.bytes.write(text, start, "utf16le")
  }

  /**
   * A text that may repeat within the batch (a span's name, an attribute's string value): its
   * number when written before, else the text itself, numbered from then on. Most repeat from
   * request to request (the route, the provider, the model); a lookup costs less than writing.
   */
  text(text: string): void {
    this.reserve(2)
    const known = text.length <= MAX_VALUE_LENGTH ? this.texts.get(text) : undefined
    if (known !== undefined) {
      this.view.setUint16(this.length, known, true)
      this.length += 2
      return
    }
    this.view.setUint16(this.length, NEW_TEXT, true)
    this.length += 2
    this.string(text)
    // every new text takes a number, as the reader counts them; only the short are looked up again
    if (this.textCount < NEW_TEXT) {
      if (text.length <= MAX_VALUE_LENGTH) this.texts.set(text, this.textCount)
      this.textCount++
    }
  }

  /**
   * An attribute's key: its number in this batch when it was written before (the keys are few and
   * the same on every span), else the key itself, numbered from then on.
   */
  private key(key: string): void {
    this.reserve(2)
    const known = this.keys.get(key)
    if (known !== undefined) {
      this.view.setUint16(this.length, known, true)
      this.length += 2
      return
    }
    this.view.setUint16(this.length, NEW_KEY, true)
    this.length += 2
    this.string(key)
    if (this.keys.size < NEW_KEY) this.keys.set(key, this.keys.size)
  }

  kind(kind: SpanKind): void {
    this.reserve(1)
    this.bytes[this.length++] = kindNumbers[kind]
  }

  time(nanos: bigint): void {
    this.reserve(8)
    this.view.setBigUint64(this.length, nanos, true)
    this.length += 8
  }

  count32(value: number): void {
    this.reserve(4)
    this.view.setUint32(this.length, value, true)
    this.length += 4
  }

  /** An attribute of a plain value (see {@link isPlainValue}), or of a value as its OTLP JSON. */
  attribute(key: string, value: string | number | boolean, json?: string): void {
    this.key(key)
    this.reserve(9)
    if (json !== undefined) {
      this.bytes[this.length++] = JSON_VALUE
      this.string(json)
    } else if (typeof value === "string") {
      this.bytes[this.length++] = STRING
      this.text(value)
    } else if (typeof value === "number") {
      this.bytes[this.length++] = INTEGER
      this.view.setFloat64(this.length, value, true)
      this.length += 8
    } else {
      this.bytes[this.length++] = value ? TRUE : FALSE
    }
  }

  /** The JSON that closes a span, or none for one that succeeded with no events or links. */
  tail(json: string | undefined): void {
    this.reserve(1)
    this.bytes[this.length++] = json === undefined ? 0 : 1
    if (json !== undefined) this.string(json)
  }
}

/** Values remembered per attribute name, at most; more are written each time. */
const MAX_VALUES = 64
/** Longer values are written each time, never remembered. */
const MAX_VALUE_LENGTH = 256

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
 * value seen twice, as most repeat from request to request (the route, the provider, the model,
 * the status): a value seen before is then one copy. A value never repeated (a trace id, a token
 * count) is written.
 */
class KeyBytes {
  readonly key: Uint8Array
  readonly stringKey: Uint8Array
  readonly intKey: Uint8Array
  private readonly start: string
  /** A value seen once maps to `null`; seen again, to its whole attribute's bytes. */
  private readonly values = new Map<string | number, Uint8Array | null>()

  constructor(key: string) {
    this.start = `{"key":${JSON.stringify(key)},"value":`
    this.key = fragment(this.start)
    this.stringKey = fragment(`${this.start}{"stringValue":"`)
    this.intKey = fragment(`${this.start}{"intValue":`)
  }

  /** The attribute with `value` (a string, or a safe integer) as bytes, if seen before. */
  repeated(value: string | number): Uint8Array | undefined {
    const bytes = this.values.get(value)
    if (bytes !== undefined && bytes !== null) return bytes
    if (bytes === null) {
      const whole = fragment(
        `${this.start}${
          typeof value === "string" ? `{"stringValue":${JSON.stringify(value)}` : `{"intValue":${value}`
        }}}`
      )
      this.values.set(value, whole)
      return whole
    }
    const remembered = typeof value === "number" || value.length <= MAX_VALUE_LENGTH
    if (remembered && this.values.size < MAX_VALUES) this.values.set(value, null)
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

/** Reads what {@link SpanRecords} wrote. */
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

  /** The batch's attribute keys, by number. */
  private readonly keys: Array<KeyBytes> = []
  /** Where each of the batch's texts was written, by number. */
  private readonly texts: Array<number> = []

  byte(): number {
    return this.bytes[this.at++] ?? 0
  }

  key(): KeyBytes {
    const number = this.view.getUint16(this.at, true)
    this.at += 2
    if (number !== NEW_KEY) return this.keys[number] ?? keyBytes("")
    const key = keyBytes(this.string())
    if (this.keys.length < NEW_KEY) this.keys.push(key)
    return key
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
    const number = this.view.getUint16(this.at, true)
    this.at += 2
    if (number === NEW_TEXT) {
      if (this.texts.length < NEW_TEXT) this.texts.push(this.at)
      return this.copyTo(out)
    }
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
  if (tag === STRING) {
    out.raw(bytes.stringKey)
    records.copyTextTo(out)
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
