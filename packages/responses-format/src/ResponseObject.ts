/**
 * The `response` object the Responses API answers, and its output items, as plain values: the
 * gateway builds them (from a chat answer or stream), stores them and writes them; it never
 * decodes them from a client.
 */
import { RandomBytes } from "@switchyard/core"
import { isRecord } from "./internal/Records.ts"
import type { ResponsesRequest } from "./ResponsesRequest.ts"

export interface OutputText {
  readonly type: "output_text"
  readonly text: string
  readonly annotations: ReadonlyArray<unknown>
  readonly logprobs: ReadonlyArray<unknown>
}

export interface Refusal {
  readonly type: "refusal"
  readonly refusal: string
}

export interface MessageOutput {
  readonly type: "message"
  readonly id: string
  readonly status: ItemStatus
  readonly role: "assistant"
  readonly content: ReadonlyArray<OutputText | Refusal>
}

export interface FunctionCallOutput {
  readonly type: "function_call"
  readonly id: string
  readonly status: ItemStatus
  readonly call_id: string
  readonly name: string
  readonly arguments: string
}

export interface SummaryText {
  readonly type: "summary_text"
  readonly text: string
}

export interface ReasoningOutput {
  readonly type: "reasoning"
  readonly id: string
  readonly status?: ItemStatus
  readonly summary: ReadonlyArray<SummaryText>
  /** The provider's signed reasoning, opaque to clients (see internal/ReasoningCarry). */
  readonly encrypted_content?: string
}

export type ItemStatus = "in_progress" | "completed" | "incomplete"

export type OutputItem = MessageOutput | FunctionCallOutput | ReasoningOutput

export interface ResponseUsage {
  readonly input_tokens: number
  readonly input_tokens_details: { readonly cached_tokens: number }
  readonly output_tokens: number
  readonly output_tokens_details: { readonly reasoning_tokens: number }
  readonly total_tokens: number
}

export type Status = "in_progress" | "completed" | "incomplete" | "failed"

export interface ResponseError {
  readonly code: string
  readonly message: string
}

export interface Response {
  readonly id: string
  readonly object: "response"
  readonly created_at: number
  readonly status: Status
  readonly error: ResponseError | null
  readonly incomplete_details: { readonly reason: "max_output_tokens" | "content_filter" } | null
  readonly instructions: string | null
  readonly max_output_tokens: number | null
  readonly model: string
  readonly output: ReadonlyArray<OutputItem>
  readonly parallel_tool_calls: boolean
  readonly previous_response_id: string | null
  readonly reasoning: { readonly effort: string | null; readonly summary: string | null }
  readonly store: boolean
  readonly temperature: number | null
  readonly text: { readonly format: unknown }
  readonly tool_choice: unknown
  readonly tools: ReadonlyArray<unknown>
  readonly top_p: number | null
  readonly truncation: "disabled"
  readonly usage: ResponseUsage | null
  readonly user: string | null
  readonly metadata: Readonly<Record<string, string>>
}

/**
 * An id in the vendor's style: `resp_…`, `msg_…`, `fc_…`, `rs_…`, then 32 hex characters,
 * time-ordered so that the stored responses' and items' indexes grow at their end, and cut from
 * core's pool of random bytes rather than a system call each.
 */
export const newId = (prefix: "resp" | "msg" | "fc" | "rs"): string => `${prefix}_${RandomBytes.timeOrderedHex()}`

/** What a response says of its request, whatever its output. */
export const skeleton = (
  request: ResponsesRequest,
  id: string,
  createdAt: number,
  model: string
): Response => ({
  id,
  object: "response",
  created_at: createdAt,
  status: "in_progress",
  error: null,
  incomplete_details: null,
  instructions: request.instructions ?? null,
  max_output_tokens: request.max_output_tokens ?? null,
  model,
  output: [],
  parallel_tool_calls: request.parallel_tool_calls ?? true,
  previous_response_id: request.previous_response_id ?? null,
  reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
  store: request.store ?? true,
  temperature: request.temperature ?? null,
  text: { format: request.text?.format ?? { type: "text" } },
  tool_choice: request.tool_choice ?? "auto",
  tools: request.tools ?? [],
  top_p: request.top_p ?? null,
  truncation: "disabled",
  usage: null,
  user: request.user ?? null,
  metadata: request.metadata ?? {}
})

/** How a chat answer ended, as the response's status says it. */
export const ending = (
  finishReason: string | null | undefined
): Pick<Response, "status" | "incomplete_details"> => {
  if (finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }
  if (finishReason === "content_filter") {
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } }
  }
  return { status: "completed", incomplete_details: null }
}

const count = (value: unknown): number => (typeof value === "number" ? value : 0)
const detail = (details: unknown, name: string): number => isRecord(details) ? count(details[name]) : 0

/** Chat usage (`prompt_tokens`, …) as the Responses API names it. */
export const usageOf = (chat: unknown): ResponseUsage | null => {
  if (!isRecord(chat)) return null
  const input = count(chat.prompt_tokens)
  const output = count(chat.completion_tokens)
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: detail(chat.prompt_tokens_details, "cached_tokens") },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: detail(chat.completion_tokens_details, "reasoning_tokens") },
    total_tokens: typeof chat.total_tokens === "number" ? chat.total_tokens : input + output
  }
}
