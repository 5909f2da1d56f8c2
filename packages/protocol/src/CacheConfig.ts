/**
 * The `cache` of a gateway config. `max_age` is in seconds (default 7 days).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IntAtLeast } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/**
 * @example
 * import { Schema } from "effect"
 * import { CacheConfig } from "@switchyard/protocol"
 * const cache = Schema.decodeUnknownSync(CacheConfig.CacheConfig)({ mode: "simple", max_age: 3600 })
 *
 * @since 0.1.0
 */
export const CacheConfig = closedStruct({
  mode: Schema.Literals(["simple", "semantic"]),
  max_age: Schema.optionalKey(IntAtLeast(0))
})
/** @since 0.1.0 */
export type CacheConfig = typeof CacheConfig.Type
