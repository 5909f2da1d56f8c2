/**
 * JSON written as UTF-8 straight into a growing buffer: constant fragments copied as bytes, ASCII
 * strings copied a character at a time, anything else (escapes, non-ASCII) through
 * `JSON.stringify` and `Buffer.write`.
 *
 * Why: an ended span written as a string first (a concatenation per field and attribute, then the
 * string encoded into the batch) allocated about 8 KB per chat request and was most of tracing's
 * garbage; written here it allocates nothing but the buffer, one per batch of spans.
 */
const QUOTE = 0x22
const BACKSLASH = 0x5c

export class JsonBytes {
  bytes: Buffer
  length = 0

  constructor(capacity: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(capacity, 64))
  }

  /** Room for `more` bytes after what is written, the buffer doubled (and copied) when it has not. */
  reserve(more: number): void {
    if (this.length + more <= this.bytes.length) return
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more))
    this.bytes.copy(grown, 0, 0, this.length)
    this.bytes = grown
  }

  /** Bytes as they are (a fragment of JSON encoded once). */
  raw(fragment: Uint8Array): void {
    this.reserve(fragment.length)
    this.bytes.set(fragment, this.length)
    this.length += fragment.length
  }

  byte(value: number): void {
    this.reserve(1)
    this.bytes[this.length++] = value
  }

  /** Text known to be ASCII that needs no escape: the digits of a number. */
  ascii(text: string): void {
    this.reserve(text.length)
    const bytes = this.bytes
    let at = this.length
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i)
    this.length = at
  }

  /** `text` as the inside of a JSON string, escaped where it must be. */
  chars(text: string): void {
    this.reserve(text.length)
    const bytes = this.bytes
    let at = this.length
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      // control characters, quotes, backslashes and non-ASCII: JSON.stringify escapes and encodes them
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
        return this.json(JSON.stringify(text).slice(1, -1))
      }
      bytes[at++] = code
    }
    this.length = at
  }

  /** Text that is JSON already, in any characters. */
  json(text: string): void {
    // a UTF-16 unit is at most 3 bytes of UTF-8
    this.reserve(text.length * 3)
    this.length += this.bytes.write(text, this.length, "utf8")
  }

  /** What is written so far (a view: valid while nothing more is written). */
  written(): Buffer {
    return this.bytes.subarray(0, this.length)
  }
}

/** A constant fragment of JSON, encoded once. */
export const fragment = (text: string): Uint8Array => Buffer.from(text, "utf8")
