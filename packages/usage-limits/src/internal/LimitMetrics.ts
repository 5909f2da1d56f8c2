/** The stage's own metrics: the requests its policies refused, and those let through uncounted. */
import { Metric } from "effect"

/** `gateway_policy_refusals_total` by the kind of policy and the status it answered: two series. */
const refusalsOf = (policy: "usage_limit" | "rate_limit", status: number) =>
  Metric.counter("gateway_policy_refusals_total", {
    description: "Requests refused by a policy, by kind of policy and status",
    attributes: { policy, status: String(status) },
    incremental: true
  })
export const refusals = refusalsOf("usage_limit", 412)
export const rateRefusals = refusalsOf("rate_limit", 429)

export const storeMisses = Metric.counter("gateway_usage_counter_misses_total", {
  description: "Requests that went on uncounted because the usage counters could not be reached (open mode)",
  incremental: true
})
