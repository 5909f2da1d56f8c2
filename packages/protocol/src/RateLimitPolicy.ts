/**
 * Rate-limit policies (extensions.md, "Rate-limit policies"): requests or tokens per minute,
 * hour or day, for the requests their conditions match, counted per group-by value key.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IntAtLeast, isMaxChars, isMinItems } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"
import { PolicyCondition, PolicyGroupBy } from "./UsageLimitsPolicy.ts"

/** @since 0.1.0 */
export const RateLimitType = Schema.Literals(["requests", "tokens"])

/** Per minute, hour or day. @since 0.1.0 */
export const RateLimitUnit = Schema.Literals(["rpm", "rph", "rpd"])

/**
 * Body of `POST /v1/policies/rate-limits`.
 *
 * @example
 * import { Schema } from "effect"
 * import { RateLimitPolicy } from "@switchyard/protocol"
 * const body = Schema.decodeUnknownSync(RateLimitPolicy.CreateRateLimitPolicy)({
 *   conditions: [{ key: "workspace_id", value: "*" }], group_by: [{ key: "api_key" }],
 *   type: "requests", unit: "rpm", value: 60
 * })
 *
 * @since 0.1.0
 */
export const CreateRateLimitPolicy = closedStruct({
  name: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(255)))),
  conditions: Schema.Array(PolicyCondition).check(isMinItems(1)),
  group_by: Schema.Array(PolicyGroupBy).check(isMinItems(1)),
  type: RateLimitType,
  unit: RateLimitUnit,
  value: IntAtLeast(1)
})
/** @since 0.1.0 */
export type CreateRateLimitPolicy = typeof CreateRateLimitPolicy.Type

/** Body of `PUT /v1/policies/rate-limits/{id}`. @since 0.1.0 */
export const UpdateRateLimitPolicy = closedStruct({
  name: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(255)))),
  unit: Schema.optionalKey(RateLimitUnit),
  value: Schema.optionalKey(IntAtLeast(1))
})
/** @since 0.1.0 */
export type UpdateRateLimitPolicy = typeof UpdateRateLimitPolicy.Type
