/**
 * What a usage-limit policy refuses a request with: both are 412 and answer over HTTP themselves
 * (`GatewayError.HttpAnswer`), naming the policy.
 */
import { GatewayError } from "@switchyard/core"
import { Data } from "effect"

/** 412: a policy's value key has reached its credit limit. */
export class UsageLimitExceeded extends Data.TaggedError("UsageLimitExceeded")<{
  readonly policyId: string
  readonly policyName: string | null
  readonly type: "cost" | "tokens"
  readonly creditLimit: number
  readonly valueKey: string
}> {
  override get message(): string {
    const unit = this.type === "cost" ? "USD" : "tokens"
    return `usage limit reached: policy ${describePolicy(this.policyId, this.policyName)} allows ${this.creditLimit} ` +
      `${unit} for ${this.valueKey}`
  }

  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    return {
      status: 412,
      body: GatewayError.envelope(this.message, "usage_limit_error", null, "usage_limit_exceeded"),
      headers: {}
    }
  }
}

/** 412: a `cost` policy applies, but the model has no known price, so it cannot be counted. */
export class UnpricedModel extends Data.TaggedError("UnpricedModel")<{
  readonly policyId: string
  readonly policyName: string | null
  readonly provider: string
  readonly model: string
}> {
  override get message(): string {
    return `model "${this.model}" of provider "${this.provider}" has no known price, so the cost policy ` +
      `${describePolicy(this.policyId, this.policyName)} cannot count it; use a model of the catalog ` +
      "(GET /v1/models) or give the integration its own pricing {input_per_million, output_per_million}"
  }

  [GatewayError.HttpAnswer](): GatewayError.HttpFailure {
    return {
      status: 412,
      body: GatewayError.envelope(this.message, "usage_limit_error", "model", "model_not_priced"),
      headers: {}
    }
  }
}

/** A policy as messages name it: its name and id, or its id. */
export const describePolicy = (id: string, name: string | null): string => name === null ? id : `"${name}" (${id})`
