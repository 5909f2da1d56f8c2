/**
 * Usage-limits policies (interface 2.6) and the body that creates one (4.8).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { isAtLeast, isMaxChars, isMinItems } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"

/** @since 0.1.0 */
export const PolicyType = Schema.Literals(["cost", "tokens"])

/** @since 0.1.0 */
export const PeriodicReset = Schema.Literals(["monthly", "weekly"])

const keys = ["api_key", "workspace_id", "virtual_key", "provider", "model", "integration"]

/** A condition or group-by key: one of the known keys, or `metadata.<key>`. @since 0.1.0 */
export const PolicyKey = Schema.String.check(
  Schema.makeFilter((key: string) => keys.includes(key) || (key.startsWith("metadata.") && key.length > 9), {
    message: `must be one of ${keys.join(", ")} or metadata.<key>`
  })
)

/** `value` `*` matches any value. @since 0.1.0 */
export const PolicyCondition = Schema.Struct({ key: PolicyKey, value: Schema.String })

/** @since 0.1.0 */
export const PolicyGroupBy = Schema.Struct({ key: PolicyKey })

/** Usage of one value key (the group-by values joined as `key:value` pairs). @since 0.1.0 */
export const ValueKeyUsage = Schema.Struct({
  usage: Schema.Number,
  last_reset_at: Schema.NullOr(Schema.String),
  alerted: Schema.Boolean
})

/**
 * @example
 * import { Schema } from "effect"
 * import { UsageLimitsPolicy } from "@switchyard/protocol"
 * const isPolicy = Schema.is(UsageLimitsPolicy.UsageLimitsPolicy)
 *
 * @since 0.1.0
 */
export const UsageLimitsPolicy = Schema.Struct({
  id: Schema.String,
  object: Schema.optionalKey(Schema.Literal("policy_usage_limits")),
  type: PolicyType,
  status: Schema.Literals(["active", "archived"]),
  workspace_id: Schema.String,
  organisation_id: Schema.String,
  created_at: Schema.String,
  last_updated_at: Schema.String,
  name: Schema.optionalKey(Schema.NullOr(Schema.String)),
  conditions: Schema.optionalKey(Schema.Array(PolicyCondition)),
  group_by: Schema.optionalKey(Schema.Array(PolicyGroupBy)),
  credit_limit: Schema.optionalKey(Schema.Number),
  alert_threshold: Schema.optionalKey(Schema.NullOr(Schema.Number)),
  periodic_reset: Schema.optionalKey(Schema.NullOr(PeriodicReset)),
  value_key_usage_map: Schema.optionalKey(Schema.Record(Schema.String, ValueKeyUsage))
})
/** @since 0.1.0 */
export type UsageLimitsPolicy = typeof UsageLimitsPolicy.Type

const NonNegative = Schema.Number.check(isAtLeast(0))

/**
 * Body of `POST /v1/policies/usage-limits`. `workspace_id` and
 * `organisation_id` are needed only without API-key authentication, which the
 * route checks, not the body.
 *
 * @since 0.1.0
 */
export const CreateUsageLimitsPolicy = Schema.Struct({
  conditions: Schema.Array(PolicyCondition).check(isMinItems(1)),
  group_by: Schema.Array(PolicyGroupBy).check(isMinItems(1)),
  type: PolicyType,
  credit_limit: NonNegative,
  name: Schema.optionalKey(Schema.String.check(isMaxChars(255))),
  alert_threshold: Schema.optionalKey(Schema.NullOr(NonNegative)),
  periodic_reset: Schema.optionalKey(Schema.NullOr(PeriodicReset)),
  workspace_id: Schema.optionalKey(Schema.String),
  organisation_id: Schema.optionalKey(Schema.String.check(Schema.isUUID(undefined, { message: "must be a UUID" })))
}).check(
  Schema.makeFilter((body) =>
    body.alert_threshold !== undefined && body.alert_threshold !== null && body.alert_threshold >= body.credit_limit
      ? { path: ["alert_threshold"], issue: `must be less than credit_limit (${body.credit_limit})` }
      : undefined
  )
)
/** @since 0.1.0 */
export type CreateUsageLimitsPolicy = typeof CreateUsageLimitsPolicy.Type

/** The answer to a create: the new policy's id. @since 0.1.0 */
export const CreatedUsageLimitsPolicy = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("policy_usage_limits")
})

/** @since 0.1.0 */
export const decodeCreate = decodeInput(CreateUsageLimitsPolicy)

/** @since 0.1.0 */
export const decodeCreateResult = decodeInputResult(CreateUsageLimitsPolicy)

/**
 * Body of `PUT /v1/policies/usage-limits/{id}`: the fields extensions.md lets change. Whether
 * `alert_threshold` stays below `credit_limit` is checked against the stored policy, since
 * either may be left as it is.
 *
 * @since 0.1.0
 */
export const UpdateUsageLimitsPolicy = closedStruct({
  name: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(255)))),
  credit_limit: Schema.optionalKey(NonNegative),
  alert_threshold: Schema.optionalKey(Schema.NullOr(NonNegative)),
  periodic_reset: Schema.optionalKey(Schema.NullOr(PeriodicReset))
})
/** @since 0.1.0 */
export type UpdateUsageLimitsPolicy = typeof UpdateUsageLimitsPolicy.Type
