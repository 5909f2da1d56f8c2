/**
 * The `retry` of a gateway config: `attempts` retries after the first try.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IntBetween, StatusCode } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/**
 * @example
 * import { Schema } from "effect"
 * import { RetryConfig } from "@switchyard/protocol"
 * const retry = Schema.decodeUnknownSync(RetryConfig.RetryConfig)({ attempts: 3, on_status_codes: [429] })
 *
 * @since 0.1.0
 */
export const RetryConfig = closedStruct({
  attempts: IntBetween(0, 5),
  on_status_codes: Schema.optionalKey(Schema.Array(StatusCode)),
  use_retry_after_headers: Schema.optionalKey(Schema.Boolean)
})
/** @since 0.1.0 */
export type RetryConfig = typeof RetryConfig.Type
