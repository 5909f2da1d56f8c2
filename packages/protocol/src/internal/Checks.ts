/**
 * Checks with plain-word `message` annotations. The decode error of the
 * gateway reads "temperature: must be between 0 and 2 (got 3)", so every
 * bound carries its rule as a message instead of Effect's generic wording.
 */
import { Schema } from "effect"

export const isInt = Schema.isInt({ message: "must be an integer" })

/** Any whole number, also beyond 2^53 (Effect's `isInt` wants a safe integer). */
export const isWhole = Schema.makeFilter((n: number) => Number.isInteger(n), { message: "must be an integer" })

export const isBetween = (minimum: number, maximum: number) =>
  Schema.isBetween({ minimum, maximum }, { message: `must be between ${minimum} and ${maximum}` })

export const isAtLeast = (minimum: number) =>
  Schema.isGreaterThanOrEqualTo(minimum, { message: `must be at least ${minimum}` })

export const isMinItems = (minimum: number) =>
  Schema.isMinLength(minimum, { message: `must have at least ${minimum} item${minimum === 1 ? "" : "s"}` })

export const isMaxItems = (maximum: number) =>
  Schema.isMaxLength(maximum, { message: `must have at most ${maximum} item${maximum === 1 ? "" : "s"}` })

export const isMaxChars = (maximum: number) =>
  Schema.isMaxLength(maximum, { message: `must be at most ${maximum} characters` })

export const isNonEmptyString = Schema.isMinLength(1, { message: "must not be empty" })

/**
 * Text the gateway sends on in an HTTP header (a provider's key, organisation, session token):
 * anything else would be refused by the HTTP client and surface as a provider failure.
 */
export const isHeaderText = Schema.isPattern(/^[\x20-\x7E]*$/, {
  message: "must be printable ASCII: it is sent in an HTTP header"
})

/** A JSON number that is an integer. */
export const Int = Schema.Number.check(isInt)

/** An integer in `[minimum, maximum]`. */
export const IntBetween = (minimum: number, maximum: number) => Schema.Number.check(isInt, isBetween(minimum, maximum))

/** An integer `>= minimum`. */
export const IntAtLeast = (minimum: number) => Schema.Number.check(isInt, isAtLeast(minimum))

/** A number in `[minimum, maximum]`. */
export const NumberBetween = (minimum: number, maximum: number) => Schema.Number.check(isBetween(minimum, maximum))

/** An HTTP status code: an integer from 100 to 599. */
export const StatusCode = IntBetween(100, 599)

/** A JSON object whose members are not checked (`parameters`, `query`, `metadata`...). */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)
