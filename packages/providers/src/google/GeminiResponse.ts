/**
 * A Gemini `GenerateContentResponse` (ai.google.dev/api/generate-content#generatecontentresponse)
 * as an OpenAI `chat.completion`. Documented rules relied on:
 * - `candidates[].content.parts[]` hold `text` (with `thought: true` for thought summaries when
 *   `includeThoughts` was asked) or `functionCall {name, args}` (newer models add an `id`);
 * - `finishReason`: STOP, MAX_TOKENS, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII,
 *   IMAGE_SAFETY, MALFORMED_FUNCTION_CALL, LANGUAGE, OTHER;
 * - a prompt blocked outright has `promptFeedback.blockReason` and no candidates;
 * - `usageMetadata.candidatesTokenCount` excludes `thoughtsTokenCount`; `totalTokenCount` counts both.
 */
import { Schema } from "effect"

const Part = Schema.Struct({
  text: Schema.optionalKey(Schema.String),
  thought: Schema.optionalKey(Schema.Boolean),
  functionCall: Schema.optionalKey(Schema.Struct({
    id: Schema.optionalKey(Schema.String),
    name: Schema.String,
    args: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
  }))
})
export type Part = typeof Part.Type

const Candidate = Schema.Struct({
  index: Schema.optionalKey(Schema.Number),
  content: Schema.optionalKey(Schema.Struct({ parts: Schema.optionalKey(Schema.Array(Part)) })),
  finishReason: Schema.optionalKey(Schema.String)
})
export type Candidate = typeof Candidate.Type

const count = Schema.optionalKey(Schema.Number)
const UsageMetadata = Schema.Struct({
  promptTokenCount: count,
  candidatesTokenCount: count,
  totalTokenCount: count,
  cachedContentTokenCount: count,
  thoughtsTokenCount: count
})
export type UsageMetadata = typeof UsageMetadata.Type

export const GenerateContentResponse = Schema.Struct({
  candidates: Schema.optionalKey(Schema.Array(Candidate)),
  promptFeedback: Schema.optionalKey(Schema.Struct({ blockReason: Schema.optionalKey(Schema.String) })),
  usageMetadata: Schema.optionalKey(UsageMetadata),
  modelVersion: Schema.optionalKey(Schema.String),
  responseId: Schema.optionalKey(Schema.String)
})
export type GenerateContentResponse = typeof GenerateContentResponse.Type

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter"

/** What a translation needs besides the provider's answer. */
export interface Identity {
  readonly id: string
  readonly created: number
  readonly model: string
  /** Whether thought summaries are returned (as `reasoning_content`): only with `strict_vendor_compliance: false`. */
  readonly reasoning: boolean
  /** The id of the `n`-th tool call of the answer, when Gemini gave none. */
  readonly callId: (n: number) => string
}

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"])

/** OpenAI's finish reason for Gemini's; a call of a function is `tool_calls` whatever Gemini says. */
export const finishReasonOf = (reason: string, calledTools: boolean): FinishReason =>
  reason === "MAX_TOKENS" ? "length" : FILTERED.has(reason) ? "content_filter" : calledTools ? "tool_calls" : "stop"

export const usageOf = (usage: UsageMetadata) => {
  const prompt = usage.promptTokenCount ?? 0
  const completion = (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: usage.totalTokenCount ?? prompt + completion,
    ...(usage.cachedContentTokenCount === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cachedContentTokenCount } }),
    ...(usage.thoughtsTokenCount === undefined
      ? {}
      : { completion_tokens_details: { reasoning_tokens: usage.thoughtsTokenCount } })
  }
}

export const toolCallOf = (call: NonNullable<Part["functionCall"]>, id: string) => ({
  id: call.id ?? id,
  type: "function" as const,
  function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) }
})

/** The model that answered, when Gemini says; the requested one otherwise. */
export const modelOf = (response: GenerateContentResponse, identity: Identity): string =>
  response.modelVersion ?? identity.model

export const toChatCompletion = (response: GenerateContentResponse, identity: Identity) => {
  let calls = 0
  const candidates = response.candidates ?? []
  const choices = candidates.length === 0
    ? [{ index: 0, message: { role: "assistant", content: "" }, finish_reason: "content_filter" }]
    : candidates.map((candidate, position) => {
      const parts = candidate.content?.parts ?? []
      const text = parts.filter((part) => part.thought !== true && part.text !== undefined)
      const thoughts = parts.filter((part) => part.thought === true && part.text !== undefined)
      const toolCalls = parts.flatMap((part) =>
        part.functionCall === undefined ? [] : [toolCallOf(part.functionCall, identity.callId(calls++))]
      )
      const content = text.map((part) => part.text ?? "").join("")
      return {
        index: candidate.index ?? position,
        message: {
          role: "assistant",
          content: content === "" && toolCalls.length > 0 ? null : content,
          ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
          ...(identity.reasoning && thoughts.length > 0
            ? { reasoning_content: thoughts.map((part) => part.text ?? "").join("") }
            : {})
        },
        finish_reason: finishReasonOf(candidate.finishReason ?? "STOP", toolCalls.length > 0)
      }
    })
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: modelOf(response, identity),
    choices,
    ...(response.usageMetadata === undefined ? {} : { usage: usageOf(response.usageMetadata) })
  }
}
