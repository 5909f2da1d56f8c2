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
/** The pool as hex, made the first time an id is cut from it: ids are slices of it. */
let poolHex = ""

/** Where the next `bytes` random bytes start in the pool, refilled when it has fewer left. */
const draw = (bytes: number): number => {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES)
    poolHex = ""
    offset = 0
  }
  offset += bytes
  return offset - bytes
}

/** `bytes` random bytes, a view of the pool (at most 4096): valid until the pool is drawn again. */
export const take = (bytes: number): Uint8Array => {
  const start = draw(bytes)
  return pool.subarray(start, start + bytes)
}

/**
 * `bytes` random bytes as hex: a slice of the pool's hex, made once a pool. Why: a `Buffer` and a
 * hex conversion an id cost ~5,000 instructions, and every request makes one (callgrind, in the
 * running gateway); a slice costs a few hundred.
 */
export const hex = (bytes: number): string => {
  const start = draw(bytes)
  if (poolHex === "") poolHex = Buffer.from(pool.buffer, pool.byteOffset, pool.length).toString("hex")
  return poolHex.slice(start * 2, (start + bytes) * 2)
}

/** The time part of the ids made within the last millisecond seen. */
let lastMillis = -1
let timeHex = ""

/**
 * A 128-bit id in hex: the time in milliseconds (48 bits), then 80 random bits. Ids made later
 * sort later, so a database index on them grows at its end: random ids land anywhere in it, and
 * each insert then rewrites a page somewhere in the index, which made a row cost several times
 * the CPU on SQLite once a table held a few tens of thousands of rows.
 */
export const timeOrderedHex = (): string => {
  const now = Date.now()
  if (now !== lastMillis) {
    lastMillis = now
    timeHex = now.toString(16).padStart(12, "0")
  }
  return timeHex + hex(10)
}
