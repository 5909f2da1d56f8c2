/** Usage-limit and rate-limit policies. */
import { Schema } from "effect"
import { json, listOf, type Operation } from "./OperationShapes.ts"

/** `status` (default `active`) and `include_usage` of the usage-limits policy routes. */
const policyQuery = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(["active", "archived"])),
  include_usage: Schema.optionalKey(Schema.Literals(["true", "false"]))
})

/** `status` (default `active`) of the rate-limit policy routes. */
const RateLimitStatus = Schema.Struct({ status: Schema.optionalKey(Schema.Literals(["active", "archived"])) })

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/policies/usage-limits": {
    tag: "Usage limits",
    summary: "Create a usage-limits policy",
    body: "CreateUsageLimitsPolicy",
    answer: json("`{\"id\": uuid, \"object\": \"policy_usage_limits\"}`.")
  },
  "GET /v1/policies/usage-limits": {
    tag: "Usage limits",
    summary: "List usage-limits policies",
    query: policyQuery,
    answer: listOf("usage-limits policies")
  },
  "GET /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Get a usage-limits policy",
    query: policyQuery,
    answer: json("The policy; with `include_usage=true`, its `value_key_usage_map`.", "UsageLimitsPolicy"),
    errors: [503]
  },
  "PUT /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Update a usage-limits policy",
    body: "UpdateUsageLimitsPolicy",
    answer: json("The updated policy.", "UsageLimitsPolicy")
  },
  "DELETE /v1/policies/usage-limits/:id": {
    tag: "Usage limits",
    summary: "Archive a usage-limits policy",
    answer: json("The archived policy: it is no longer enforced.", "UsageLimitsPolicy")
  },
  "POST /v1/policies/usage-limits/:id/reset": {
    tag: "Usage limits",
    summary: "Reset a usage-limits policy's usage",
    answer: json("The policy; its usage starts again from zero.", "UsageLimitsPolicy")
  },
  "POST /v1/policies/rate-limits": {
    tag: "Rate limits",
    summary: "Create a rate-limit policy",
    body: "CreateRateLimitPolicy",
    answer: json("The policy, `object: \"policy_rate_limits\"`.")
  },
  "GET /v1/policies/rate-limits": {
    tag: "Rate limits",
    summary: "List rate-limit policies",
    query: RateLimitStatus,
    answer: listOf("rate-limit policies")
  },
  "GET /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Get a rate-limit policy",
    query: RateLimitStatus,
    answer: json("The policy.")
  },
  "PUT /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Update a rate-limit policy",
    body: "UpdateRateLimitPolicy",
    answer: json("The updated policy.")
  },
  "DELETE /v1/policies/rate-limits/:id": {
    tag: "Rate limits",
    summary: "Archive a rate-limit policy",
    answer: json("The archived policy: it is no longer enforced.")
  }
}
