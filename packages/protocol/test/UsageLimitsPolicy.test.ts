import { assert, describe, it } from "@effect/vitest"
import { UsageLimitsPolicy } from "@switchyard/protocol"
import { Result, Schema } from "effect"
import { accepts, rejects } from "./support/Decode.ts"

const decode = UsageLimitsPolicy.decodeCreateResult
const base = {
  conditions: [{ key: "api_key", value: "*" }],
  group_by: [{ key: "metadata._user" }],
  type: "cost",
  credit_limit: 100
}

describe("UsageLimitsPolicy", () => {
  it("accepts a create body at its edges", () => {
    accepts(decode, { ...base, credit_limit: 0 })
    accepts(decode, { ...base, name: "n".repeat(255), alert_threshold: 99.99, periodic_reset: "weekly" })
    accepts(decode, {
      ...base,
      alert_threshold: 0,
      periodic_reset: null,
      organisation_id: "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
    })
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["no conditions", { ...base, conditions: [] }, "conditions", "must have at least 1 item"],
    ["no group_by", { ...base, group_by: [] }, "group_by", "must have at least 1 item"],
    [
      "an unknown key",
      { ...base, group_by: [{ key: "team" }] },
      "group_by[0].key",
      "must be one of api_key, workspace_id"
    ],
    [
      "a bare metadata key",
      { ...base, conditions: [{ key: "metadata.", value: "x" }] },
      "conditions[0].key",
      "metadata.<key>"
    ],
    ["another type", { ...base, type: "requests" }, "type", "must be one of \"cost\", \"tokens\""],
    ["a negative credit_limit", { ...base, credit_limit: -1 }, "credit_limit", "must be at least 0 (got -1)"],
    ["a 256-character name", { ...base, name: "n".repeat(256) }, "name", "must be at most 255 characters"],
    [
      "a negative alert_threshold",
      { ...base, alert_threshold: -0.5 },
      "alert_threshold",
      "must be at least 0 (got -0.5)"
    ],
    [
      "an alert_threshold equal to credit_limit",
      { ...base, alert_threshold: 100 },
      "alert_threshold",
      "must be less than credit_limit (100)"
    ],
    ["another reset", { ...base, periodic_reset: "daily" }, "periodic_reset", "must be one of \"monthly\", \"weekly\""],
    ["an organisation_id that is no UUID", { ...base, organisation_id: "org" }, "organisation_id", "must be a UUID"]
  ]
  for (const [name, body, param, rule] of invalid) {
    it(`rejects ${name}`, () => void rejects(decode, body, param, rule))
  }

  it("describes a stored policy with its usage map", () => {
    const policy = {
      id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      object: "policy_usage_limits",
      type: "tokens",
      status: "active",
      workspace_id: "ws",
      organisation_id: "org",
      created_at: "2026-01-01T00:00:00Z",
      last_updated_at: "2026-01-01T00:00:00Z",
      credit_limit: 1000,
      alert_threshold: null,
      periodic_reset: "monthly",
      value_key_usage_map: { "api_key:k1": { usage: 10, last_reset_at: null, alerted: false } }
    }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(UsageLimitsPolicy.UsageLimitsPolicy)(policy)))
  })
})
