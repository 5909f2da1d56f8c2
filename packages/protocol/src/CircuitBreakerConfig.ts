/**
 * The `cb_config` of a gateway config: one circuit per target.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IntAtLeast, isAtLeast, StatusCode } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/**
 * @example
 * import { Schema } from "effect"
 * import { CircuitBreakerConfig } from "@switchyard/protocol"
 * const cb = Schema.decodeUnknownSync(CircuitBreakerConfig.CircuitBreakerConfig)({
 *   failure_threshold: 5,
 *   cooldown_interval: 60000
 * })
 *
 * @since 0.1.0
 */
export const CircuitBreakerConfig = closedStruct({
  failure_threshold: IntAtLeast(1),
  // Milliseconds.
  cooldown_interval: Schema.Number.check(isAtLeast(30000)),
  failure_status_codes: Schema.optionalKey(Schema.Array(StatusCode))
})
/** @since 0.1.0 */
export type CircuitBreakerConfig = typeof CircuitBreakerConfig.Type
