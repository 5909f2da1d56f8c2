/**
 * The query of list endpoints (run steps, messages, batches...): `limit`
 * 1 to 100 (default 20), `order` `asc` or `desc` (default `desc`), and the
 * `after` / `before` cursors. Query values arrive as strings.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { isBetween, isInt } from "./internal/Checks.ts"
import { decodeInput } from "./InvalidInput.ts"

/**
 * @example
 * import { Effect, Schema } from "effect"
 * import { ListQuery } from "@switchyard/protocol"
 * const query = Schema.decodeUnknownSync(ListQuery.ListQuery)({ limit: "50" }) // { limit: 50, order: "desc" }
 *
 * @since 0.1.0
 */
export const ListQuery = Schema.Struct({
  limit: Schema.NumberFromString.check(isInt, isBetween(1, 100)).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed("20"))
  ),
  order: Schema.Literals(["asc", "desc"]).pipe(Schema.withDecodingDefaultKey(Effect.succeed("desc" as const))),
  after: Schema.optionalKey(Schema.String),
  before: Schema.optionalKey(Schema.String)
})

/** @since 0.1.0 */
export type ListQuery = typeof ListQuery.Type

/** @since 0.1.0 */
export const decode = decodeInput(ListQuery)
