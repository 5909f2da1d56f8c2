/**
 * The values every generator draws from: numbers JSON cannot hold, strings that look like
 * numbers or prototype keys, values of the wrong type, names no schema knows, and depths that
 * linger around the JSON depth limit and reach far past it.
 */
import fc from "fast-check"
import { type Json, type Nesting, raw } from "./JsonText.ts"
import { words } from "./Lists.ts"

/** extensions.md, "Limits of input". */
const MAX_JSON_DEPTH = 64

const hugeNumber = fc.constantFrom<Json>(
  ...words("1e400 -1e400 1e308 123456789012345678901234567890 -0 1e-400 0.1e1 9007199254740993").map(raw),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  2 ** 31,
  -(2 ** 31) - 1
)
export const nanLike = fc.constantFrom(
  ...words("NaN Infinity -Infinity 1e999 0x10 null true 1_000 ١٢٣ +5 .5 --1"),
  " 1",
  ""
)
export const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
  { weight: 2, arbitrary: nanLike },
  {
    weight: 1,
    arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "😀😀", "\u0000", "\ud800", "\u202e")
  }
)
export const scalar: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  hugeNumber,
  oddString
)
export const wrongValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 5, arbitrary: scalar },
  { weight: 1, arbitrary: fc.constantFrom<Json>([], {}, [null], [[]], [{}]) },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(oddString, scalar, { maxKeys: 4 }) }
)
/** A member name no schema knows. */
export const unknownName = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "x", "", "Model", "model ", "targets2", "strategy.mode"),
  fc.string({ minLength: 1, maxLength: 12 }).map((name) => `zz_${name}`)
)
/** Depths that linger around the limit and reach far past it. */
export const depth = (max: number) =>
  fc.oneof(
    fc.integer({ min: 1, max: 40 }),
    fc.integer({ min: MAX_JSON_DEPTH - 6, max: MAX_JSON_DEPTH + 6 }),
    fc.integer({ min: MAX_JSON_DEPTH + 7, max })
  )
export const nesting = fc.constantFrom<Nesting>("object", "array", "mixed")
export const tooDeep = (total: number) => total > MAX_JSON_DEPTH ? `nested ${total} levels, more than 64` : undefined
