/**
 * The two object policies of the wire format. Request bodies and upstream
 * responses keep unknown members (they are forwarded, and providers add their
 * own); the gateway config rejects them, because a misspelt config field would
 * otherwise be silently ignored.
 */
import { Schema } from "effect"

/** Rest signature that keeps every member the struct does not declare. */
const Rest = Schema.Record(Schema.String, Schema.Unknown)

/**
 * A struct that checks its declared fields and keeps any other member as is.
 */
export const openStruct = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), [Rest])

/**
 * A struct that rejects undeclared members with "unknown field" at the
 * member's own path, whatever parse options the caller uses.
 *
 * The key check runs on the raw object, whose members are not decoded yet, and
 * the declared fields are then decoded once: a recursive field (a config's
 * `targets`) is decoded once per level, so the work grows linearly with the
 * input. Decoding the members on both sides of the check doubled the work at
 * each level of nesting.
 */
export const closedStruct = <const Fields extends Schema.Struct.Fields>(fields: Fields) => {
  const known = new Set(Object.keys(fields))
  return Rest.check(
    Schema.makeFilter((record: { readonly [key: string]: unknown }) => {
      const unknown: Array<Schema.FilterIssue> = []
      for (const key of Object.keys(record)) {
        if (!known.has(key)) unknown.push({ path: [key], issue: "unknown field" })
      }
      return unknown
    })
  ).pipe(Schema.decodeTo(Schema.Struct(fields)))
}
