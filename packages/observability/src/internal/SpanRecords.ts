/**
 * Ended spans as the span thread is handed them: a batch's spans as compact bytes, written on the
 * event loop as each span ends ({@link SpanRecords}); the thread reads them and writes their
 * OTLP/JSON (`SpanJson.writeSpans`).
 *
 * A span is: trace id, span id, parent span id (empty for a root) (strings), name (a text); its kind (one
 * byte); start and end time (epoch nanoseconds, 64 bits); the number of its attributes (32 bits),
 * each a key (a text), a tag (one byte) and its value (a text, a string not numbered, a safe
 * integer as a 64-bit float, nothing for a boolean, or the value's OTLP JSON made where the span
 * ended); last the tail: a
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
 * `effect`: the thread loads it.
 */

/** The span kinds effect's `Tracer` names, in OTLP's `Span.SpanKind` order from 1. */
export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer"

export const kinds: ReadonlyArray<SpanKind> = ["internal", "server", "client", "producer", "consumer"]
const kindNumbers: Readonly<Record<SpanKind, number>> = { internal: 0, server: 1, client: 2, producer: 3, consumer: 4 }

/** The top bit of a string's length: its characters are UTF-16 code units, not ASCII bytes. */
export const UTF16 = 0x8000_0000

/** A `Buffer` over the whole of `bytes`' memory (never node's shared pool). */
export const ownBuffer = (bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Buffer<ArrayBuffer> =>
  bytes instanceof ArrayBuffer ? Buffer.from(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** A text's number saying that the text itself follows, and takes the next number. */
export const NEW_TEXT = 0xffff

/** An attribute value's tag. */
export const STRING = 0
export const INTEGER = 1
export const TRUE = 2
export const FALSE = 3
export const JSON_VALUE = 4
/** A string value that is not numbered: one that varies under its key (a trace id), written each time. */
export const UNNUMBERED_STRING = 5

/** Longer texts are written each time they come, never looked up. */
const MAX_TEXT_LENGTH = 256

/** Whether a value is written as itself; any other is written as its OTLP JSON, made by the caller. */
export const isPlainValue = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value))

/** An attribute key's number in the batch, and the string value last written under it. */
interface Slot {
  readonly key: number
  value: string | undefined
  valueNumber: number
}

/**
 * Attribute keys in a fixed order, for the spans that set the same ones every time (a request's,
 * an upstream attempt's): their values are given by position ({@link SpanRecords.laidOut}), and a
 * batch finds each key's slot by position, not by looking the key up. Make one per kind of span,
 * once.
 */
export class AttributeLayout {
  readonly keys: ReadonlyArray<string>
  constructor(keys: ReadonlyArray<string>) {
    this.keys = keys
  }
}

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
  /** The texts written in this batch (the short ones, looked up again), by their number. */
  private readonly texts = new Map<string, number>()
  /**
   * Each attribute key's number and the last string value written under it, with its number.
   * Why: the values a request carries (its model, route, provider) are new strings each time, which
   * a lookup in {@link texts} hashes whole; compared with the last one under the same key, most are
   * found equal without that. A key whose value changed (a trace id) has its values written as
   * they come, neither hashed nor numbered nor kept.
   */
  private readonly slots = new Map<string, Slot>()
  /** Each layout's slots in this batch, by position (found once a span, not once an attribute). */
  private readonly layouts = new Map<AttributeLayout, Array<Slot | undefined>>()
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
   * A text that may repeat within the batch (a span's name, an attribute's key or string value):
   * its number when written before, else the text itself, numbered from then on. Most repeat from
   * request to request (the keys, the route, the provider, the model); a lookup costs less than
   * writing. Answers the text's number (`NEW_TEXT` past the last a batch holds).
   */
  text(text: string): number {
    const known = text.length <= MAX_TEXT_LENGTH ? this.texts.get(text) : undefined
    if (known !== undefined) {
      this.number16(known)
      return known
    }
    this.number16(NEW_TEXT)
    this.string(text)
    // every new text takes a number, as the reader counts them; only the short are looked up again
    const number = this.textCount
    if (this.textCount < NEW_TEXT) {
      if (text.length <= MAX_TEXT_LENGTH) this.texts.set(text, this.textCount)
      this.textCount++
    }
    return number
  }

  /** A text's number, or `NEW_TEXT`. */
  private number16(value: number): void {
    this.reserve(2)
    this.view.setUint16(this.length, value, true)
    this.length += 2
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

  /** An attribute of a plain value (see {@link isPlainValue}). */
  attribute(key: string, value: string | number | boolean): void {
    let slot = this.slots.get(key)
    if (slot === undefined) {
      slot = { key: this.text(key), value: undefined, valueNumber: 0 }
      // a batch past its last number writes its new texts each time
      if (slot.key < NEW_TEXT) this.slots.set(key, slot)
    } else {
      this.number16(slot.key)
    }
    this.value(slot, value)
  }

  /**
   * The attributes of `values` under `layout`'s keys, by position, the undefined ones left out
   * (count them in the span's number of attributes: {@link definedCount}). A value not plain is
   * written as its OTLP JSON, made by `json`.
   */
  laidOut(layout: AttributeLayout, values: ReadonlyArray<unknown>, json: (value: unknown) => string): void {
    let slots = this.layouts.get(layout)
    if (slots === undefined) {
      slots = Array.from<Slot | undefined>({ length: layout.keys.length })
      this.layouts.set(layout, slots)
    }
    for (let i = 0; i < values.length; i++) {
      const value = values[i]
      if (value === undefined) continue
      const key = layout.keys[i] ?? ""
      if (!isPlainValue(value)) {
        this.jsonAttribute(key, json(value))
        continue
      }
      let slot = slots[i]
      if (slot === undefined) {
        slot = { key: this.text(key), value: undefined, valueNumber: 0 }
        if (slot.key < NEW_TEXT) slots[i] = slot
      } else {
        this.number16(slot.key)
      }
      this.value(slot, value)
    }
  }

  /** An attribute's tag and value, after its key; a string compared with the last under the key. */
  private value(slot: Slot, value: string | number | boolean): void {
    this.reserve(9)
    if (typeof value === "string") {
      if (slot.value === value) {
        this.bytes[this.length++] = STRING
        this.number16(slot.valueNumber)
      } else if (slot.value !== undefined) {
        // the value changed under its key: from now on, as it comes
        this.bytes[this.length++] = UNNUMBERED_STRING
        this.string(value)
      } else {
        this.bytes[this.length++] = STRING
        const number = this.text(value)
        if (number < NEW_TEXT) {
          slot.value = value
          slot.valueNumber = number
        }
      }
    } else if (typeof value === "number") {
      this.bytes[this.length++] = INTEGER
      this.view.setFloat64(this.length, value, true)
      this.length += 8
    } else {
      this.bytes[this.length++] = value ? TRUE : FALSE
    }
  }

  /** How many of `values` are defined: the attributes {@link laidOut} writes of them. */
  static definedCount(values: ReadonlyArray<unknown>): number {
    let count = 0
    for (let i = 0; i < values.length; i++) if (values[i] !== undefined) count++
    return count
  }

  /** An attribute of any other value, as its OTLP JSON (`AnyValue`). */
  jsonAttribute(key: string, json: string): void {
    this.text(key)
    this.reserve(1)
    this.bytes[this.length++] = JSON_VALUE
    this.string(json)
  }

  /** The JSON that closes a span, or none for one that succeeded with no events or links. */
  tail(json: string | undefined): void {
    this.reserve(1)
    this.bytes[this.length++] = json === undefined ? 0 : 1
    if (json !== undefined) this.string(json)
  }
}
