/**
 * One request in the request log (extensions.md, "Running it", request log): what a caller hands
 * in as the request ends ({@link Entry}, cheap to make on the request path: plain fields, bodies
 * by reference), the row it becomes when the batch is written, and the object `GET /v1/logs`
 * answers ({@link LogRecord}).
 */
import type { Endpoint, RequestNotes } from "@switchyard/core"
import { Schema } from "effect"

/** What the request log keeps of one request, as its caller knows it when the request ends. */
export interface Entry {
  readonly traceId: string
  readonly workspaceId: string
  readonly apiKeyId: string | undefined
  /** Epoch milliseconds at which the gateway received the request. */
  readonly receivedAt: number
  /** `POST /v1/chat/completions`, or where an in-process call came from (`assistant run`, `batch line`). */
  readonly route: string
  readonly endpoint: Endpoint.Endpoint | undefined
  readonly status: number
  readonly stream: boolean
  readonly provider: string | undefined
  readonly model: string | undefined
  /** The config path of the target that answered (`x-gateway-last-used-option-index`, e.g. `config.targets[1]`). */
  readonly targetPath: string | undefined
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number } | undefined
  readonly costUsd: number | undefined
  readonly latencyMs: number
  /** From receipt to a streamed answer's first chunk. */
  readonly firstTokenMs: number | undefined
  readonly cacheStatus: string | undefined
  /** Attempts after the first. */
  readonly retries: number | undefined
  readonly metadata: Readonly<Record<string, string>>
  /**
   * What the stages noted (each hook's and guardrail's result), read when the batch is written:
   * checks a stream runs after it ended may still add theirs until then.
   */
  readonly notes?: RequestNotes.RequestNotes | undefined
  /** Only when bodies are logged (`GATEWAY_LOG_BODIES=true`); serialised when the batch is written. */
  readonly requestBody?: unknown
  readonly responseBody?: unknown
}

/** How much of each body is kept: the first 64 KiB of its JSON text (65,536 characters). */
export const MAX_BODY_CHARS = 65_536

/** The object `GET /v1/logs` and `GET /v1/logs/{id}` answer. */
export interface LogRecord {
  readonly id: string
  readonly object: "request_log"
  /** Unix seconds. */
  readonly created_at: number
  readonly trace_id: string
  readonly route: string
  readonly endpoint: string | null
  readonly status: number
  readonly stream: boolean
  readonly provider: string | null
  readonly model: string | null
  readonly target_path: string | null
  readonly usage: {
    readonly prompt_tokens: number
    readonly completion_tokens: number
    readonly total_tokens: number
  } | null
  readonly cost_usd: number | null
  readonly latency_ms: number
  readonly time_to_first_token_ms: number | null
  readonly cache_status: string | null
  readonly retries: number | null
  readonly api_key_id: string | null
  readonly workspace_id: string
  readonly metadata: Readonly<Record<string, string>>
  /** Each hook's and guardrail's result (`before` or `after` the provider), in the order they ended. */
  readonly hook_results: ReadonlyArray<RequestNotes.HookNote>
  /** The JSON body as sent; a string of its first {@link MAX_BODY_CHARS} characters when it was longer; null when bodies are not logged. */
  readonly request_body: unknown
  readonly response_body: unknown
}

/** A body's text for its column: the JSON, cut at {@link MAX_BODY_CHARS}. */
export const bodyText = (body: unknown): string | null => {
  if (body === undefined) return null
  const text = JSON.stringify(body) ?? "null"
  return text.length > MAX_BODY_CHARS ? text.slice(0, MAX_BODY_CHARS) : text
}

/** The columns of a row but its id, in the order `LogRows` writes their values. */
export const COLUMNS = [
  "workspace_id",
  "position",
  "trace_id",
  "route",
  "endpoint",
  "status",
  "stream",
  "provider",
  "model",
  "target_path",
  "prompt_tokens",
  "completion_tokens",
  "cost_usd",
  "latency_ms",
  "first_token_ms",
  "cache_status",
  "retries",
  "api_key_id",
  "metadata",
  "hook_results",
  "request_body",
  "response_body"
] as const

/** Postgres answers BIGINT as text. */
const Num = Schema.Union([Schema.Finite, Schema.NumberFromString])
const NullableNum = Schema.NullOr(Num)

const CheckNote = Schema.Struct({
  id: Schema.String,
  verdict: Schema.Boolean,
  explanation: Schema.String,
  error: Schema.optionalKey(Schema.String),
  execution_time: Schema.Finite
})

const HookNote = Schema.Struct({
  id: Schema.String,
  stage: Schema.Literals(["before", "after"]),
  target_path: Schema.String,
  type: Schema.Literals(["guardrail", "mutator"]),
  verdict: Schema.Boolean,
  deny: Schema.Boolean,
  execution_time: Schema.Finite,
  checks: Schema.Array(CheckNote)
})

/** A row as the database answers it. */
export const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  position: Num,
  trace_id: Schema.String,
  route: Schema.String,
  endpoint: Schema.NullOr(Schema.String),
  status: Num,
  stream: Num,
  provider: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  target_path: Schema.NullOr(Schema.String),
  prompt_tokens: NullableNum,
  completion_tokens: NullableNum,
  cost_usd: NullableNum,
  latency_ms: Num,
  first_token_ms: NullableNum,
  cache_status: Schema.NullOr(Schema.String),
  retries: NullableNum,
  api_key_id: Schema.NullOr(Schema.String),
  metadata: Schema.fromJsonString(Schema.Record(Schema.String, Schema.String)),
  hook_results: Schema.NullOr(Schema.fromJsonString(Schema.Array(HookNote))),
  request_body: Schema.NullOr(Schema.String),
  response_body: Schema.NullOr(Schema.String)
})
export type Row = typeof Row.Type

/** A kept body: its JSON value when whole, its cut text when it was longer than the cap. */
const bodyOf = (text: string | null): unknown => {
  if (text === null) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100

export const fromRow = (row: Row): LogRecord => ({
  id: row.id,
  object: "request_log",
  created_at: Math.floor(row.position / 1000),
  trace_id: row.trace_id,
  route: row.route,
  endpoint: row.endpoint,
  status: row.status,
  stream: row.stream === 1,
  provider: row.provider,
  model: row.model,
  target_path: row.target_path,
  usage: row.prompt_tokens === null ? null : {
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens ?? 0,
    total_tokens: row.prompt_tokens + (row.completion_tokens ?? 0)
  },
  cost_usd: row.cost_usd,
  latency_ms: round(row.latency_ms),
  time_to_first_token_ms: row.first_token_ms === null ? null : round(row.first_token_ms),
  cache_status: row.cache_status,
  retries: row.retries,
  api_key_id: row.api_key_id,
  workspace_id: row.workspace_id,
  metadata: row.metadata,
  hook_results: row.hook_results ?? [],
  request_body: bodyOf(row.request_body),
  response_body: bodyOf(row.response_body)
})
