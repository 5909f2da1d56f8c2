/**
 * Fields shared by the chat and the legacy completion request bodies, with
 * the bounds of section 8 of the interface.
 */
import { Schema } from "effect"
import { IntAtLeast, IntBetween, isBetween, isMaxItems, isWhole, NumberBetween } from "./Checks.ts"
import { openStruct } from "./Structs.ts"

const nullable = <S extends Schema.Top>(schema: S) => Schema.optionalKey(Schema.NullOr(schema))

export const penalty = nullable(NumberBetween(-2, 2))
export const temperature = nullable(NumberBetween(0, 2))
export const topP = nullable(NumberBetween(0, 1))
export const n = nullable(IntBetween(1, 128))
export const maxTokens = nullable(IntAtLeast(1))
export const flag = nullable(Schema.Boolean)

/** Token id -> bias; `null` is accepted as "no bias", as clients of this format send it. */
export const logitBias = nullable(Schema.Record(Schema.String, NumberBetween(-100, 100)))

// The interface gives the range as about +-9223372036854776000: a signed 64-bit
// integer, whose bounds a JSON number can only hold as +-2^63.
const int64 = 2 ** 63
export const seed = nullable(Schema.Number.check(isWhole, isBetween(-int64, int64)))

export const stop = nullable(Schema.Union([Schema.String, Schema.Array(Schema.String).check(isMaxItems(4))]))

export const streamOptions = nullable(openStruct({ include_usage: Schema.optionalKey(Schema.Boolean) }))

export const user = Schema.optionalKey(Schema.String)

/** `stream_options` only means something for a streamed answer. */
export const streamOptionsRule = Schema.makeFilter(
  (body: { readonly stream?: boolean | null; readonly stream_options?: unknown }) =>
    body.stream_options !== undefined && body.stream_options !== null && body.stream !== true
      ? { path: ["stream_options"], issue: "is only allowed when stream is true" }
      : undefined
)
