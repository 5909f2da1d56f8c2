/**
 * Anthropic's Message object (docs.anthropic.com, "Messages" reference) as a `chat.completion`.
 * Documented shapes relied on: `content` is a list of `text`, `tool_use` `{ id, name, input }`,
 * `thinking` `{ thinking, signature }` and `redacted_thinking` `{ data }` blocks; `stop_reason` is
 * `end_turn`, `max_tokens`, `stop_sequence`, `tool_use`, `pause_turn` or `refusal`; `usage` has
 * `input_tokens` and `output_tokens`, and `cache_read_input_tokens` / `cache_creation_input_tokens`,
 * which `input_tokens` does not include.
 */
import { Schema } from "effect"

const Count = Schema.optionalKey(Schema.NullOr(Schema.Number))

export const Usage = Schema.Struct({
  input_tokens: Count,
  output_tokens: Count,
  cache_read_input_tokens: Count,
  cache_creation_input_tokens: Count
})
export type Usage = typeof Usage.Type

export const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.optionalKey(Schema.Unknown)
})
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalKey(Schema.String)
})
export const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
/** Blocks of server tools and later additions: skipped. */
export const OtherBlock = Schema.Struct({ type: Schema.String })
export const ContentBlock = Schema.Union([TextBlock, ToolUseBlock, ThinkingBlock, RedactedThinkingBlock, OtherBlock])
export type ContentBlock = typeof ContentBlock.Type

export const Message = Schema.Struct({
  id: Schema.String,
  model: Schema.String,
  content: Schema.Array(ContentBlock),
  stop_reason: Schema.optionalKey(Schema.NullOr(Schema.String)),
  stop_sequence: Schema.optionalKey(Schema.NullOr(Schema.String)),
  usage: Schema.optionalKey(Usage)
})
export type Message = typeof Message.Type

const finishReasons: Readonly<Record<string, string>> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter"
}

export const finishReasonOf = (stopReason: string | null | undefined): string =>
  (stopReason === null || stopReason === undefined ? undefined : finishReasons[stopReason]) ?? "stop"

/** OpenAI counts cached tokens inside `prompt_tokens`; Anthropic counts them apart, so they are added. */
export const usageOf = (usage: Usage | undefined) => {
  const cached = usage?.cache_read_input_tokens ?? 0
  const prompt = (usage?.input_tokens ?? 0) + cached + (usage?.cache_creation_input_tokens ?? 0)
  const completion = usage?.output_tokens ?? 0
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached }
  }
}

export interface Identity {
  readonly created: number
  /** Whether thinking blocks are returned (`strict_vendor_compliance: false`). */
  readonly extras: boolean
}

/** The `chat.completion` object of an Anthropic message. */
export const toChatCompletion = (message: Message, identity: Identity) => {
  const text = message.content.flatMap((block) => ("text" in block ? [block.text] : [])).join("")
  const toolCalls = message.content.flatMap((block) =>
    "name" in block
      ? [{
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) }
      }]
      : []
  )
  const reply: Record<string, unknown> = {
    role: "assistant",
    content: text === "" && toolCalls.length > 0 ? null : text,
    refusal: null
  }
  if (toolCalls.length > 0) reply.tool_calls = toolCalls
  if (identity.extras) {
    reply.content_blocks = message.content.filter((block) =>
      block.type === "text" || block.type === "thinking" || block.type === "redacted_thinking"
    )
    const reasoning = message.content.flatMap((block) => ("thinking" in block ? [block.thinking] : [])).join("")
    if (reasoning !== "") reply.reasoning = reasoning
  }
  const choice: Record<string, unknown> = {
    index: 0,
    message: reply,
    logprobs: null,
    finish_reason: finishReasonOf(message.stop_reason)
  }
  if (identity.extras && typeof message.stop_sequence === "string") choice.stop_sequence = message.stop_sequence
  return {
    id: message.id,
    object: "chat.completion",
    created: identity.created,
    model: message.model,
    choices: [choice],
    usage: usageOf(message.usage)
  }
}
