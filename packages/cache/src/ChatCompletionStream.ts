/**
 * Between a complete answer and its stream: replays a stored `chat.completion` (or
 * `text_completion`) as the chunks a provider would have streamed, and folds streamed chunks back
 * into the complete answer so that a streamed answer can be stored.
 */
import type { GatewayRequest } from "@switchyard/core"

type JsonObject = GatewayRequest.JsonObject

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const objects = (value: unknown): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(value) ? value.filter(isObject) : []

/**
 * The chunks of a stored answer: for each choice a role chunk, the content, one chunk per tool
 * call, and a finish chunk; then, with `includeUsage`, a usage chunk with no choices.
 *
 * @example
 * import { ChatCompletionStream } from "@switchyard/cache"
 * const chunks = ChatCompletionStream.toChunks(completion, { includeUsage: true })
 */
export const toChunks = (answer: unknown, options: { readonly includeUsage: boolean }): Array<JsonObject> => {
  if (!isObject(answer)) return []
  const text = answer.object === "text_completion"
  const head = {
    id: answer.id,
    object: text ? "text_completion" : "chat.completion.chunk",
    created: answer.created,
    model: answer.model,
    ...(answer.system_fingerprint === undefined ? {} : { system_fingerprint: answer.system_fingerprint })
  }
  const chunk = (choices: ReadonlyArray<JsonObject>): JsonObject => ({ ...head, choices })
  const chunks: Array<JsonObject> = []
  for (const choice of objects(answer.choices)) {
    const index = choice.index ?? 0
    if (text) {
      chunks.push(chunk([{ index, text: choice.text ?? "", logprobs: null, finish_reason: null }]))
    } else {
      const message = isObject(choice.message) ? choice.message : {}
      chunks.push(chunk([{ index, delta: { role: message.role ?? "assistant", content: "" }, finish_reason: null }]))
      if (typeof message.content === "string" && message.content.length > 0) {
        chunks.push(chunk([{ index, delta: { content: message.content }, finish_reason: null }]))
      }
      if (typeof message.refusal === "string" && message.refusal.length > 0) {
        chunks.push(chunk([{ index, delta: { refusal: message.refusal }, finish_reason: null }]))
      }
      for (const [position, call] of objects(message.tool_calls).entries()) {
        chunks.push(chunk([{ index, delta: { tool_calls: [{ index: position, ...call }] }, finish_reason: null }]))
      }
    }
    chunks.push(
      chunk([{ index, ...(text ? { text: "" } : { delta: {} }), finish_reason: choice.finish_reason ?? "stop" }])
    )
  }
  if (options.includeUsage && answer.usage !== undefined) chunks.push({ ...head, choices: [], usage: answer.usage })
  return chunks
}

interface ToolCall {
  id?: unknown
  type?: unknown
  name: string
  arguments: string
}

interface Choice {
  role: unknown
  content: string
  refusal: string
  text: string
  toolCalls: Array<ToolCall>
  finishReason: unknown
}

/**
 * Folds chunks into the complete answer. `complete()` is the answer once every choice seen has a
 * finish reason, `undefined` for a stream that ended early.
 */
export class Accumulator {
  #head: Record<string, unknown> = {}
  #text = false
  #usage: unknown = undefined
  readonly #choices = new Map<number, Choice>()

  add(chunk: JsonObject): void {
    for (const field of ["id", "created", "model", "system_fingerprint"]) {
      if (chunk[field] !== undefined && chunk[field] !== null) this.#head[field] = chunk[field]
    }
    if (chunk.object === "text_completion") this.#text = true
    if (chunk.usage !== undefined && chunk.usage !== null) this.#usage = chunk.usage
    for (const raw of objects(chunk.choices)) {
      const index = typeof raw.index === "number" ? raw.index : 0
      let choice = this.#choices.get(index)
      if (choice === undefined) {
        choice = { role: "assistant", content: "", refusal: "", text: "", toolCalls: [], finishReason: undefined }
        this.#choices.set(index, choice)
      }
      if (typeof raw.text === "string") choice.text += raw.text
      if (raw.finish_reason !== undefined && raw.finish_reason !== null) choice.finishReason = raw.finish_reason
      const delta = isObject(raw.delta) ? raw.delta : undefined
      if (delta === undefined) continue
      if (typeof delta.role === "string") choice.role = delta.role
      if (typeof delta.content === "string") choice.content += delta.content
      if (typeof delta.refusal === "string") choice.refusal += delta.refusal
      for (const call of objects(delta.tool_calls)) {
        const at = typeof call.index === "number" ? call.index : choice.toolCalls.length
        const known = choice.toolCalls[at] ?? { name: "", arguments: "" }
        choice.toolCalls[at] = known
        if (call.id !== undefined) known.id = call.id
        if (call.type !== undefined) known.type = call.type
        const fn = isObject(call.function) ? call.function : {}
        if (typeof fn.name === "string") known.name += fn.name
        if (typeof fn.arguments === "string") known.arguments += fn.arguments
      }
    }
  }

  complete(): JsonObject | undefined {
    if (this.#choices.size === 0) return undefined
    const choices: Array<JsonObject> = []
    for (const [index, choice] of [...this.#choices].sort(([a], [b]) => a - b)) {
      if (choice.finishReason === undefined) return undefined
      if (this.#text) {
        choices.push({ index, text: choice.text, logprobs: null, finish_reason: choice.finishReason })
        continue
      }
      const message: Record<string, unknown> = {
        role: choice.role,
        content: choice.content.length === 0 && choice.toolCalls.length > 0 ? null : choice.content
      }
      if (choice.refusal.length > 0) message.refusal = choice.refusal
      if (choice.toolCalls.length > 0) {
        message.tool_calls = choice.toolCalls.map((call) => ({
          id: call.id,
          type: call.type ?? "function",
          function: { name: call.name, arguments: call.arguments }
        }))
      }
      choices.push({ index, message, logprobs: null, finish_reason: choice.finishReason })
    }
    return {
      ...this.#head,
      object: this.#text ? "text_completion" : "chat.completion",
      choices,
      ...(this.#usage === undefined ? {} : { usage: this.#usage })
    }
  }
}
