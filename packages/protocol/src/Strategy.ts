/**
 * The `strategy` of a gateway config: how a request is routed among the
 * config's `targets`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { JsonObject, StatusCode } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/** @since 0.1.0 */
export const StrategyMode = Schema.Literals(["single", "loadbalance", "fallback", "conditional"])
/** @since 0.1.0 */
export type StrategyMode = typeof StrategyMode.Type

/**
 * A rule of `conditional` mode: when `query` (a MongoDB-style filter over
 * `{ metadata, params, url }`) matches, the target named `then` is used.
 *
 * @since 0.1.0
 */
export const Condition = closedStruct({
  query: JsonObject,
  // `then` is the interface's own member name; this object is never awaited.
  // oxlint-disable-next-line unicorn/no-thenable
  then: Schema.String
})
/** @since 0.1.0 */
export type Condition = typeof Condition.Type

/**
 * @example
 * import { Schema } from "effect"
 * import { Strategy } from "@switchyard/protocol"
 * const strategy = Schema.decodeUnknownSync(Strategy.Strategy)({ mode: "fallback", on_status_codes: [429, 503] })
 *
 * @since 0.1.0
 */
export const Strategy = closedStruct({
  mode: StrategyMode,
  conditions: Schema.optionalKey(Schema.Array(Condition)),
  default: Schema.optionalKey(Schema.String),
  on_status_codes: Schema.optionalKey(Schema.Array(StatusCode))
}).check(
  Schema.makeFilter((strategy) => {
    if (strategy.mode !== "conditional") return undefined
    const missing = [
      ...(strategy.conditions === undefined ? ["conditions"] : []),
      ...(strategy.default === undefined ? ["default"] : [])
    ]
    if (missing.length === 0) return undefined
    const which = missing.length === 1 ? ` (missing ${missing.join("")})` : ""
    return `conditional mode requires conditions and default${which}`
  })
)
/** @since 0.1.0 */
export type Strategy = typeof Strategy.Type
