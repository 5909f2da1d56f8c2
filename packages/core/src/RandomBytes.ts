/**
 * Random bytes for the ids made on every request (trace and span ids, request log record ids), cut
 * from a pool: one system call per few hundred ids, not one each (a draw of 16 bytes an id cost
 * the event loop several µs a request).
 *
 * @example
 * import { RandomBytes } from "@switchyard/core"
 * const spanId = RandomBytes.hex(8) // 16 hex characters
 * const sixteen = RandomBytes.take(16) // a view of the pool: use it before the next call
 */
import { randomBytes } from "node:crypto"

const POOL_BYTES = 4096
let pool = new Uint8Array(0)
let offset = 0

/** `bytes` random bytes, a view of the pool (at most 4096): valid until the pool is drawn again. */
export const take = (bytes: number): Uint8Array => {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES)
    offset = 0
  }
  offset += bytes
  return pool.subarray(offset - bytes, offset)
}

/** `bytes` random bytes as hex. */
export const hex = (bytes: number): string => {
  const view = take(bytes)
  return Buffer.from(view.buffer, view.byteOffset, bytes).toString("hex")
}

/**
 * A 128-bit id in hex: the time in milliseconds (48 bits), then 80 random bits. Ids made later
 * sort later, so a database index on them grows at its end: random ids land anywhere in it, and
 * each insert then rewrites a page somewhere in the index, which made a row cost several times
 * the CPU on SQLite once a table held a few tens of thousands of rows.
 */
export const timeOrderedHex = (): string => Date.now().toString(16).padStart(12, "0") + hex(10)
