/**
 * Usage: cost over time from the request log (a chart), then each usage-limit policy's usage per
 * value key (`include_usage=true`) against its limit.
 */
import { useState } from "preact/hooks"
import { get, type List, query } from "../api.ts"
import { bucketize, CostChart } from "../CostChart.tsx"
import { count, usd } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import type { LogRecord, UsagePolicy } from "../types.ts"
import { useResource } from "../useResource.ts"

const WINDOWS = {
  hour: { label: "Last hour", bucketSeconds: 60, count: 60 },
  day: { label: "Last 24 hours", bucketSeconds: 3_600, count: 24 },
  week: { label: "Last 7 days", bucketSeconds: 86_400, count: 7 }
} as const

type Window = keyof typeof WINDOWS

/** At most this many pages of 100 records are read for the chart. */
const MAX_PAGES = 20

const recordsSince = async (from: number) => {
  const records: Array<LogRecord> = []
  let after: string | undefined = undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const listed: List<LogRecord> = await get<List<LogRecord>>(`/v1/logs${query({ from, limit: 100, after })}`)
    records.push(...listed.data)
    if (listed.has_more !== true || listed.data.length === 0) return { records, complete: true }
    after = listed.data.at(-1)?.id
  }
  return { records, complete: false }
}

const CostOverTime = () => {
  const [window, setWindow] = useState<Window>("hour")
  const settings = WINDOWS[window]
  const costs = useResource(
    async () => {
      const now = Math.floor(Date.now() / 1000)
      const from = now - settings.bucketSeconds * settings.count
      const { records, complete } = await recordsSince(from)
      return { buckets: bucketize(records, { now, ...settings }), records: records.length, complete }
    },
    [window],
    { everyMs: 10_000 }
  )
  return (
    <>
      <div class="title-row">
        <h2>Cost over time</h2>
        <select value={window} onChange={(event) => setWindow(event.currentTarget.value as Window)}>
          {Object.entries(WINDOWS).map(([name, { label }]) => <option key={name} value={name}>{label}</option>)}
        </select>
      </div>
      <Loaded resource={costs}>
        {({ buckets, records, complete }) => (
          <figure>
            <CostChart buckets={buckets} bucketSeconds={settings.bucketSeconds} />
            <figcaption class="muted">
              {usd(buckets.reduce((sum, bucket) => sum + bucket.cost, 0))} over {count(records)} logged requests
              {complete ? "" : ` (the latest ${count(records)} only)`}
            </figcaption>
          </figure>
        )}
      </Loaded>
    </>
  )
}

/** A policy's fields may be absent from its answer (interface 2.6): a missing limit is shown as such. */
const amount = (policy: UsagePolicy, value: number | undefined) =>
  value === undefined ? "—" : policy.type === "cost" ? usd(value) : `${count(value)} tokens`

const PolicyUsage = ({ policy }: { readonly policy: UsagePolicy }) => {
  const usage = Object.entries(policy.value_key_usage_map ?? {})
  const limit = policy.credit_limit
  return (
    <article class="card" data-policy={policy.id}>
      <h3>{policy.name ?? policy.id}</h3>
      <p class="muted">
        {policy.type === "cost" ? "Cost" : "Tokens"} limit {amount(policy, limit)} per{" "}
        {(policy.group_by ?? []).map((group) => group.key).join(", ")}
        {policy.periodic_reset ? `, reset ${policy.periodic_reset}` : ""}
      </p>
      <Table
        items={usage}
        empty="No usage recorded yet."
        columns={[
          ["Value key", ([key]) => <code>{key}</code>],
          ["Used", ([, used]) => amount(policy, used.usage)],
          ["Of the limit", ([, used]) =>
            limit === undefined ? "—" : (
              <>
                <meter min={0} max={limit} value={used.usage} high={policy.alert_threshold ?? undefined} />{" "}
                {limit === 0 ? "" : `${Math.round((used.usage / limit) * 100)}%`}
              </>
            )],
          ["Alerted", ([, used]) => (used.alerted ? "yes" : "no")]
        ]}
      />
    </article>
  )
}

export const UsagePage = () => {
  const policies = useResource(
    async () => {
      const listed = await get<List<UsagePolicy>>("/v1/policies/usage-limits")
      return Promise.all(
        listed.data.map((policy) =>
          get<UsagePolicy>(`/v1/policies/usage-limits/${encodeURIComponent(policy.id)}?include_usage=true`)
        )
      )
    },
    [],
    { everyMs: 10_000 }
  )
  return (
    <section>
      <h1>Usage</h1>
      <CostOverTime />
      <h2>Per usage-limit policy</h2>
      <Loaded resource={policies}>
        {(found) =>
          found.length === 0
            ? <p class="muted">No usage-limit policy.</p>
            : found.map((policy) => <PolicyUsage key={policy.id} policy={policy} />)}
      </Loaded>
    </section>
  )
}
