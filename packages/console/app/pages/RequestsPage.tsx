/** The request log (`GET /v1/logs`), newest first, filtered by what the route filters on. */
import { useState } from "preact/hooks"
import { get, type List, query } from "../api.ts"
import { count, ms, time, usd } from "../format.ts"
import { Loaded, Table } from "../Loaded.tsx"
import { href } from "../route.ts"
import type { LogRecord } from "../types.ts"
import { useResource } from "../useResource.ts"

const FILTERS = [
  ["status", "Status", "e.g. 500"],
  ["provider", "Provider", "e.g. openai"],
  ["model", "Model", "e.g. gpt-4o-mini"],
  ["trace_id", "Trace id", "32 hex digits"],
  ["api_key_id", "API key id", "key_…"]
] as const

type Filters = Partial<Record<(typeof FILTERS)[number][0], string>>

const statusClass = (status: number) => (status >= 500 ? "bad" : status >= 400 ? "warn" : "good")

export const StatusBadge = ({ status }: { readonly status: number }) => (
  <span class={`badge ${statusClass(status)}`}>{status}</span>
)

export const RequestsPage = () => {
  const [draft, setDraft] = useState<Filters>({})
  const [filters, setFilters] = useState<Filters>({})
  const logs = useResource(
    () => get<List<LogRecord>>(`/v1/logs${query({ ...filters, limit: 100, order: "desc" })}`),
    [JSON.stringify(filters)],
    { everyMs: 5_000 }
  )
  return (
    <section>
      <h1>Requests</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault()
          setFilters(draft)
        }}
      >
        {FILTERS.map(([name, label, placeholder]) => (
          <label key={name}>
            {label}
            <input
              name={name}
              value={draft[name] ?? ""}
              placeholder={placeholder}
              onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value.trim() })}
            />
          </label>
        ))}
        <button type="submit">Filter</button>
      </form>
      <Loaded resource={logs}>
        {(page) => (
          <Table
            items={page.data}
            empty="No request matches."
            columns={[
              ["Time", (record) => <a href={href("requests", record.id)}>{time(record.created_at)}</a>],
              ["Status", (record) => <StatusBadge status={record.status} />],
              ["Route", (record) => record.route],
              ["Provider", (record) => record.provider ?? "—"],
              ["Model", (record) => record.model ?? "—"],
              ["Tokens", (record) =>
                record.usage === null
                  ? "—"
                  : `${count(record.usage.prompt_tokens)} in / ${count(record.usage.completion_tokens)} out`],
              ["Cost", (record) => usd(record.cost_usd)],
              ["Latency", (record) => ms(record.latency_ms)],
              ["Trace id", (record) => <code>{record.trace_id}</code>]
            ]}
          />
        )}
      </Loaded>
    </section>
  )
}
