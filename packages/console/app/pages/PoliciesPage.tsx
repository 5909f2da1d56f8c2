/** The workspace's usage-limit and rate-limit policies, active ones. */
import { get, type List } from "../api.ts"
import { count, usd } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { RatePolicy, UsagePolicy } from "../types.ts"
import { useResource } from "../useResource.ts"

const conditions = (items: ReadonlyArray<{ readonly key: string; readonly value: string }>) =>
  items.map((item) => `${item.key} = ${item.value}`).join(", ")

export const PoliciesPage = () => {
  const usage = useResource(() => get<List<UsagePolicy>>("/v1/policies/usage-limits"), [])
  const rate = useResource(() => get<List<RatePolicy>>("/v1/policies/rate-limits"), [])
  return (
    <section>
      <h1>Policies</h1>
      <h2>Usage limits</h2>
      <Loaded resource={usage}>
        {(list) => (
          <Table
            items={list.data}
            empty="No usage-limit policy."
            columns={[
              ["Name", (policy) => policy.name ?? <code>{policy.id}</code>],
              ["Type", (policy) => policy.type],
              ["Limit", (policy) => (policy.type === "cost" ? usd(policy.credit_limit) : count(policy.credit_limit))],
              ["Alert at", (policy) =>
                policy.alert_threshold === null
                  ? "—"
                  : policy.type === "cost"
                  ? usd(policy.alert_threshold)
                  : count(policy.alert_threshold)],
              ["Reset", (policy) => policy.periodic_reset ?? "never"],
              ["When", (policy) => conditions(policy.conditions ?? [])],
              ["Per", (policy) => (policy.group_by ?? []).map((group) => group.key).join(", ")]
            ]}
          />
        )}
      </Loaded>
      <h2>Rate limits</h2>
      <Loaded resource={rate}>
        {(list) => (
          <Table
            items={list.data}
            empty="No rate-limit policy."
            columns={[
              ["Name", (policy) => policy.name ?? <code>{policy.id}</code>],
              ["Limit", (policy) => `${count(policy.value)} ${policy.type} per ${policy.unit}`],
              ["When", (policy) => conditions(policy.conditions)],
              ["Per", (policy) => policy.group_by.map((group) => group.key).join(", ")]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
