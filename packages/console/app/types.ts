/** What the management routes answer, as far as the console reads them (never a secret). */

/** `GET /v1/logs`, `GET /v1/logs/{id}`. Fields the console does not name are shown in the detail too. */
export interface LogRecord {
  readonly id: string
  readonly created_at: number
  readonly trace_id: string
  readonly route: string
  readonly endpoint: string | null
  readonly status: number
  readonly stream: boolean
  readonly provider: string | null
  readonly model: string | null
  readonly target_path: string | null
  readonly usage:
    | { readonly prompt_tokens: number; readonly completion_tokens: number; readonly total_tokens: number }
    | null
  readonly cost_usd: number | null
  readonly latency_ms: number
  readonly time_to_first_token_ms: number | null
  readonly cache_status: string | null
  readonly retries: number | null
  readonly api_key_id: string | null
  readonly workspace_id: string
  readonly metadata: Readonly<Record<string, string>>
  readonly hook_results: ReadonlyArray<HookResult>
  readonly request_body: unknown
  readonly response_body: unknown
  readonly [more: string]: unknown
}

/** One hook's or guardrail's result in a request log record; times in milliseconds. */
export interface HookResult {
  readonly id: string
  readonly stage: "before" | "after"
  readonly target_path: string
  readonly type: "guardrail" | "mutator"
  readonly verdict: boolean
  readonly deny: boolean
  readonly execution_time: number
  readonly checks: ReadonlyArray<{
    readonly id: string
    readonly verdict: boolean
    readonly explanation: string
    readonly error?: string
    readonly execution_time: number
  }>
}

export interface UsagePolicy {
  readonly id: string
  readonly name: string | null
  readonly type: "cost" | "tokens"
  readonly status: "active" | "archived"
  readonly conditions: ReadonlyArray<{ readonly key: string; readonly value: string }>
  readonly group_by: ReadonlyArray<{ readonly key: string }>
  readonly credit_limit: number
  readonly alert_threshold: number | null
  readonly periodic_reset: string | null
  readonly value_key_usage_map?: Readonly<
    Record<string, { readonly usage: number; readonly last_reset_at: string | null; readonly alerted: boolean }>
  >
}

export interface RatePolicy {
  readonly id: string
  readonly name: string | null
  readonly type: string
  readonly unit: string
  readonly value: number
  readonly status: string
  readonly conditions: ReadonlyArray<{ readonly key: string; readonly value: string }>
  readonly group_by: ReadonlyArray<{ readonly key: string }>
}

export interface Circuit {
  readonly id: string
  readonly provider: string
  readonly host: string
  readonly model: string
  readonly credential_id: string
  readonly state: "closed" | "open" | "half_open" | "unknown"
  readonly retry_after_ms: number | null
  readonly probing: boolean
  readonly consecutive_openings: number
  readonly failures: number
  readonly opened_at: number | null
  readonly last_attempt_at: number
}

export interface Integration {
  readonly id: string
  readonly slug: string
  readonly provider: string
  readonly name: string | null
  readonly created_at: number
  readonly updated_at: number
  readonly settings: Readonly<Record<string, unknown>>
}

export interface StoredConfig {
  readonly id: string
  readonly name: string
  readonly version: number
  readonly config: object
  readonly created_at: number
  readonly updated_at: number
}

export interface ApiKey {
  readonly id: string
  readonly name: string
  readonly workspace_id: string
  readonly scopes: ReadonlyArray<string>
  readonly key_prefix: string
  readonly created_at: number
  readonly expires_at: number | null
  readonly revoked_at: number | null
}
