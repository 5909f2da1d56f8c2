/**
 * Bedrock Converse response → OpenAI `chat.completion`. The Converse API reference defines the
 * answer as `{output: {message: {role, content: [ContentBlock]}}, stopReason, usage: {inputTokens,
 * outputTokens, totalTokens, cacheReadInputTokens?, cacheWriteInputTokens?}, metrics}`; cache reads
 * and writes are counted apart from `inputTokens`, so they are added back into `prompt_tokens`.
 */
import { Schema } from "effect"

/** `stopReason` → `finish_reason`; an unknown reason reads as a normal stop. */
const finishReasons: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter"
}

export const finishReasonOf = (stopReason: string): string => finishReasons[stopReason] ?? "stop"

export const Usage = Schema.Struct({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  totalTokens: Schema.optional(Schema.Number),
  cacheReadInputTokens: Schema.optional(Schema.NullOr(Schema.Number)),
  cacheWriteInputTokens: Schema.optional(Schema.NullOr(Schema.Number))
})
export type Usage = typeof Usage.Type

export const usageOf = (usage: Usage) => {
  const cached = usage.cacheReadInputTokens ?? 0
  const prompt = usage.inputTokens + cached + (usage.cacheWriteInputTokens ?? 0)
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: cached }
  }
}

const ContentBlock = Schema.Struct({
  text: Schema.optional(Schema.String),
  toolUse: Schema.optional(Schema.Struct({ toolUseId: Schema.String, name: Schema.String, input: Schema.Unknown })),
  reasoningContent: Schema.optional(Schema.Struct({
    reasoningText: Schema.optional(Schema.Struct({ text: Schema.String }))
  }))
})

export const ConverseResponse = Schema.Struct({
  output: Schema.Struct({
    message: Schema.optional(Schema.Struct({ content: Schema.Array(ContentBlock) }))
  }),
  stopReason: Schema.String,
  usage: Schema.optional(Usage)
})
export type ConverseResponse = typeof ConverseResponse.Type

export interface Identity {
  readonly id: string
  readonly created: number
  readonly model: string
  /** Adds `reasoning_content` (Claude's thinking) to the message. */
  readonly withReasoning: boolean
}

/** The `chat.completion` object for a Converse answer. */
export const toCompletion = (response: ConverseResponse, identity: Identity) => {
  const blocks = response.output.message?.content ?? []
  const texts = blocks.flatMap((block) => (block.text === undefined ? [] : [block.text]))
  const reasoning = blocks.flatMap((block) => {
    const text = block.reasoningContent?.reasoningText?.text
    return text === undefined ? [] : [text]
  })
  const toolCalls = blocks.flatMap((block) =>
    block.toolUse === undefined ? [] : [{
      id: block.toolUse.toolUseId,
      type: "function",
      function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) }
    }]
  )
  const message: Record<string, unknown> = {
    role: "assistant",
    content: texts.length === 0 && toolCalls.length > 0 ? null : texts.join("")
  }
  if (toolCalls.length > 0) message.tool_calls = toolCalls
  if (identity.withReasoning && reasoning.length > 0) message.reasoning_content = reasoning.join("")
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(response.stopReason) }],
    ...(response.usage === undefined ? {} : { usage: usageOf(response.usage) })
  }
}
