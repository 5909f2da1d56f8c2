/**
 * The metadata rule shared by thread messages and batches: at most 16
 * pairs, keys at most 64 characters, string values at most 512 characters.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * @example
 * import { Schema } from "effect"
 * import { Metadata } from "@switchyard/protocol"
 * const metadata = Schema.decodeUnknownSync(Metadata.Metadata)({ team: "search" })
 *
 * @since 0.1.0
 */
export const Metadata = Schema.Record(
  // Key length is a check on the record: a key schema that refuses a key
  // would drop the pair silently instead of rejecting it.
  Schema.String,
  Schema.String.check(Schema.isMaxLength(512, { message: "must be at most 512 characters" }))
).check(
  Schema.isMaxProperties(16, { message: "must have at most 16 pairs" }),
  Schema.makeFilter((metadata: { readonly [key: string]: string }) =>
    Object.keys(metadata)
      .filter((key) => key.length > 64)
      .map((key) => ({ path: [key], issue: "key must be at most 64 characters" }))
  )
)

/** @since 0.1.0 */
export type Metadata = typeof Metadata.Type
