/**
 * One request of the log (`GET /v1/logs/{id}`): its trace, the target that answered, retries,
 * tokens, cost, its hooks' and guardrails' results, bodies.
 */
import type { ComponentChildren } from "preact"
import { get } from "../api.ts"
import { count, json, ms, time, usd } from "../format.ts"
import { Loaded } from "../Loaded.tsx"
import { href } from "../route.ts"
import type { HookResult, LogRecord } from "../types.ts"
import { useResource } from "../useResource.ts"
import { StatusBadge } from "./RequestsPage.tsx"

/** The fields shown in the summary; every other field of the record follows under "More". */
const SHOWN = new Set([
  "id",
  "object",
  "created_at",
  "trace_id",
  "route",
  "endpoint",
  "status",
  "stream",
  "provider",
  "model",
  "target_path",
  "usage",
  "cost_usd",
  "latency_ms",
  "time_to_first_token_ms",
  "cache_status",
  "retries",
  "api_key_id",
  "workspace_id",
  "metadata",
  "hook_results",
  "request_body",
  "response_body"
])

const Field = ({ name, children }: { readonly name: string; readonly children: ComponentChildren }) => (
  <>
    <dt>{name}</dt>
    <dd>{children}</dd>
  </>
)

const Body = ({ title, body }: { readonly title: string; readonly body: unknown }) =>
  body === null || body === undefined ? null : (
    <>
      <h2>{title}</h2>
      <pre>{typeof body === "string" ? body : json(body)}</pre>
    </>
  )

const Verdict = ({ passed }: { readonly passed: boolean }) => (
  <span class={`badge ${passed ? "good" : "bad"}`}>{passed ? "pass" : "fail"}</span>
)

/** Each hook's result: its verdict, whether it blocked, its time, and each check's verdict and why. */
const Hooks = ({ hooks }: { readonly hooks: ReadonlyArray<HookResult> }) =>
  hooks.length === 0 ? null : (
    <>
      <h2>Hooks and guardrails</h2>
      <table data-testid="hook-results">
        <thead>
          <tr>
            <th>Hook</th>
            <th>Stage</th>
            <th>Target</th>
            <th>Verdict</th>
            <th>Denied</th>
            <th>Time</th>
            <th>Checks</th>
          </tr>
        </thead>
        <tbody>
          {hooks.map((hook, index) => (
            <tr key={`${index}-${hook.id}`}>
              <td>
                <code>{hook.id}</code>
                {hook.type === "mutator" ? <span class="muted">(mutator)</span> : null}
              </td>
              <td>{hook.stage === "before" ? "before the provider" : "after the provider"}</td>
              <td>
                <code>{hook.target_path}</code>
              </td>
              <td>
                <Verdict passed={hook.verdict} />
              </td>
              <td>{hook.deny ? <span class="error">denied</span> : "no"}</td>
              <td>{ms(hook.execution_time)}</td>
              <td>
                {hook.checks.map((check) => (
                  <div key={check.id}>
                    <Verdict passed={check.verdict} /> <code>{check.id}</code>{" "}
                    <span class="muted">{check.error ?? check.explanation}</span>
                  </div>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )

export const RequestDetail = ({ id }: { readonly id: string }) => {
  const record = useResource(() => get<LogRecord>(`/v1/logs/${encodeURIComponent(id)}`), [id])
  return (
    <section>
      <p>
        <a href={href("requests")}>← Requests</a>
      </p>
      <Loaded resource={record}>
        {(found) => {
          const more = Object.entries(found).filter(([name]) => !SHOWN.has(name))
          return (
            <>
              <h1>
                <StatusBadge status={found.status} /> {found.route}
              </h1>
              <dl class="fields" data-testid="request-detail">
                <Field name="Trace id">
                  <code>{found.trace_id}</code>
                </Field>
                <Field name="Time">{time(found.created_at)}</Field>
                <Field name="Provider">{found.provider ?? "—"}</Field>
                <Field name="Model">{found.model ?? "—"}</Field>
                <Field name="Target path">
                  <code>{found.target_path ?? "—"}</code>
                </Field>
                <Field name="Retries">{count(found.retries)}</Field>
                <Field name="Input tokens">{count(found.usage?.prompt_tokens)}</Field>
                <Field name="Output tokens">{count(found.usage?.completion_tokens)}</Field>
                <Field name="Total tokens">{count(found.usage?.total_tokens)}</Field>
                <Field name="Cost">{usd(found.cost_usd)}</Field>
                <Field name="Latency">{ms(found.latency_ms)}</Field>
                <Field name="Time to first token">{ms(found.time_to_first_token_ms)}</Field>
                <Field name="Cache">{found.cache_status ?? "—"}</Field>
                <Field name="Streamed">{found.stream ? "yes" : "no"}</Field>
                <Field name="API key id">
                  <code>{found.api_key_id ?? "—"}</code>
                </Field>
                <Field name="Workspace">{found.workspace_id}</Field>
                <Field name="Metadata">
                  {Object.keys(found.metadata).length === 0 ? "—" : <pre>{json(found.metadata)}</pre>}
                </Field>
              </dl>
              {more.length === 0 ? null : (
                <>
                  <h2>More</h2>
                  <dl class="fields">
                    {more.map(([name, value]) => (
                      <Field key={name} name={name}>
                        <pre>{json(value)}</pre>
                      </Field>
                    ))}
                  </dl>
                </>
              )}
              <Hooks hooks={found.hook_results} />
              <Body title="Request body" body={found.request_body} />
              <Body title="Response body" body={found.response_body} />
            </>
          )
        }}
      </Loaded>
    </section>
  )
}
