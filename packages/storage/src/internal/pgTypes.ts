/**
 * Postgres type codecs that keep rows alike on both dialects. `@effect/sql-pg` reads BIGINT
 * (int8, also `count(*)`) as a JS bigint, while node:sqlite reads every INTEGER as a number; this
 * registry reads int8 as a number whenever it is a safe integer, so a repository decodes one shape.
 */
import { PgTypes } from "@effect/sql-pg"
import { Result } from "effect"

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER)
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

const codecError = (message: string) => Result.fail(new PgTypes.CodecError({ message }))

const int8: PgTypes.Codec<number | bigint> = {
  encode: (value) => {
    if (typeof value === "number" && !Number.isSafeInteger(value)) return codecError(`int8: not an integer: ${value}`)
    const bytes = new Uint8Array(8)
    new DataView(bytes.buffer).setBigInt64(0, BigInt(value))
    return Result.succeed(bytes)
  },
  decode: (bytes) => {
    if (bytes.byteLength !== 8) return codecError(`int8: expected 8 bytes, got ${bytes.byteLength}`)
    const value = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0)
    return Result.succeed(value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value)
  }
}

/** The codecs of the gateway's Postgres clients: the built-ins, with int8 read as a number. */
export const makeRegistry = (): PgTypes.Registry => {
  const registry = PgTypes.makeRegistry()
  registry.register(PgTypes.OID.int8, int8, { arrayOid: PgTypes.OID.int8Array })
  return registry
}
