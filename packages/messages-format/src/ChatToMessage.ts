/**
 * The internal chat answer as an Anthropic Message (docs.anthropic.com, "Messages" reference):
 * thinking blocks first (with their signatures when the provider gave them, see `ChatReasoning`),
 * then the text, then one `tool_use` block per tool call; `stop_reason` and `usage` in
 * Anthropic's terms.
 */
import { ChatCompletion, ChatReasoning, InvalidInput, type Usage } from "@switchyard/protocol"
import { Result } from "effect"

type Json = Record<string, unknown>

/** Anthropic's stop reason for a chat finish reason (`stop` with a named stop sequence is `stop_sequence`). */
export const stopReasonOf = (finishReason: string | null | undefined, stopSequence: string | undefined): string => {
  switch (finishReason) {
    case "length":
      return "max_tokens"
    case "tool_calls":
    case "function_call":
      return "tool_use"
    case "content_filter":
      return "refusal"
    default:
      return stopSequence === undefined ? "end_turn" : "stop_sequence"
  }
}

/**
 * Anthropic's usage of a chat usage: chat counts cached tokens inside `prompt_tokens`, Anthropic
 * apart from `input_tokens`.
 */
export const usageOf = (usage: Usage.Usage | null | undefined) => {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached
  }
}

/** A tool call's arguments as the object Anthropic's `input` is; text that is no JSON object is kept under `raw`. */
export const inputOf = (text: string): Json => {
  if (text.trim() === "") return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? { ...value } : { raw: text }
  } catch {
    return { raw: text }
  }
}

// the JIT-compiled decoder: every non-streamed answer goes through it
const decodeCompletion = InvalidInput.decodeInputResult(ChatCompletion.ChatCompletion)

/**
 * The Message of a chat answer, or undefined when the answer is not a chat completion.
 *
 * @example
 * import { ChatToMessage } from "@switchyard/messages-format"
 * ChatToMessage.toMessage({ id: "c1", object: "chat.completion", created: 1, model: "gpt-4o",
 *   choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }] })
 */
export const toMessage = (answer: unknown): Json | undefined => {
  const decoded = decodeCompletion(answer)
  if (Result.isFailure(decoded)) return undefined
  const completion = decoded.success
  const choice = completion.choices[0]
  const message = choice?.message
  const content: Array<Json> = []
  const blocks = ChatReasoning.blocksOf(message)
  const reasoning = ChatReasoning.textOf(message)
  if (blocks.length > 0) content.push(...blocks.map((block) => ({ ...block })))
  else if (reasoning !== undefined) content.push({ type: "thinking", thinking: reasoning, signature: "" })
  const text = message?.content ?? message?.refusal ?? ""
  if (text !== "") content.push({ type: "text", text })
  for (const call of message?.tool_calls ?? []) {
    content.push({ type: "tool_use", id: call.id, name: call.function.name, input: inputOf(call.function.arguments) })
  }
  const stopSequence = ChatReasoning.stopSequenceOf(choice)
  return {
    id: completion.id,
    type: "message",
    role: "assistant",
    model: completion.model,
    content,
    stop_reason: stopReasonOf(choice?.finish_reason, stopSequence),
    stop_sequence: stopSequence ?? null,
    usage: usageOf(completion.usage)
  }
}
