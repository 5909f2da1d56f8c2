/**
 * Anthropic Message objects and their streams, shaped as docs.anthropic.com documents them
 * ("Messages" reference; "Streaming Messages", whose transcript the events follow: message_start,
 * content_block_start, ping, content_block_delta…, content_block_stop, message_delta, message_stop).
 */
import { arrayField, contentText, countWords, field, stringField } from "../JsonFields.ts"

export type ReplyBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }

export interface MessageReply {
  readonly content: ReadonlyArray<ReplyBlock>
  readonly stop_reason: string
  readonly stop_sequence?: string | null | undefined
  readonly usage?: Readonly<Record<string, number>> | undefined
}

export interface Identity {
  readonly id: string
  readonly model: string
}

/** The default reply: echoes the last user text, calls the chosen tool, thinks when asked to. */
export const defaultReply = (body: unknown, ordinal: number): MessageReply => {
  const messages = arrayField(body, "messages")
  const last = messages.at(-1)
  const userText = stringField(last, "role") === "user" ? contentText(field(last, "content")) : ""
  const thinking: ReadonlyArray<ReplyBlock> = stringField(field(body, "thinking"), "type") === "enabled"
    ? [{ type: "thinking", thinking: `Thinking about: ${userText}`, signature: `sig-fake-${ordinal}` }]
    : []
  const tool = chosenTool(body, last)
  const inputTokens = countWords(messages.map((message) => contentText(field(message, "content"))).join(" "))
  if (tool !== undefined) {
    return {
      content: [...thinking, { type: "tool_use", id: `toolu_fake_${ordinal}`, name: tool, input: {} }],
      stop_reason: "tool_use",
      usage: { input_tokens: inputTokens, output_tokens: 1 }
    }
  }
  const { text, stopReason, stopSequence } = limited(`echo: ${userText}`, body)
  return {
    content: [...thinking, { type: "text", text }],
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    usage: { input_tokens: inputTokens, output_tokens: countWords(text) }
  }
}

const chosenTool = (body: unknown, last: unknown): string | undefined => {
  const tools = arrayField(body, "tools")
  const choice = field(body, "tool_choice")
  const answered = arrayField(last, "content").some((block) => stringField(block, "type") === "tool_result")
  if (tools.length === 0 || stringField(choice, "type") === "none" || answered) return undefined
  return stringField(choice, "name") ?? stringField(tools[0], "name")
}

/** The reply cut at the first stop sequence it contains, or at `max_tokens` words. */
const limited = (reply: string, body: unknown) => {
  const sequences = arrayField(body, "stop_sequences").filter((s): s is string => typeof s === "string")
  for (const sequence of sequences) {
    const at = reply.indexOf(sequence)
    if (at >= 0) return { text: reply.slice(0, at), stopReason: "stop_sequence", stopSequence: sequence }
  }
  const maxTokens = field(body, "max_tokens")
  const words = reply.split(" ")
  return typeof maxTokens === "number" && words.length > maxTokens
    ? { text: words.slice(0, maxTokens).join(" "), stopReason: "max_tokens", stopSequence: null }
    : { text: reply, stopReason: "end_turn", stopSequence: null }
}

const usageOf = (reply: MessageReply) => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  ...reply.usage
})

/** The Message object of a non-streamed answer. */
export const messageObject = (reply: MessageReply, identity: Identity) => ({
  id: identity.id,
  type: "message",
  role: "assistant",
  model: identity.model,
  content: reply.content,
  stop_reason: reply.stop_reason,
  stop_sequence: reply.stop_sequence ?? null,
  usage: usageOf(reply)
})

const sse = (data: JsonRecord) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`
type JsonRecord = Readonly<Record<string, unknown>>

/** The SSE events of a streamed answer, one string per event. */
export const messageEvents = (reply: MessageReply, identity: Identity): ReadonlyArray<string> =>
  messageEventData(reply, identity).map(sse)

/** The events of a streamed answer as JSON objects (Bedrock frames them in its own event stream). */
export const messageEventData = (reply: MessageReply, identity: Identity): ReadonlyArray<JsonRecord> => {
  const usage = usageOf(reply)
  const start = {
    type: "message_start",
    message: {
      ...messageObject(reply, identity),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 }
    }
  }
  const blocks = reply.content.flatMap((block, index) => blockEvents(block, index))
  return [
    start,
    ...blocks.slice(0, 1),
    { type: "ping" },
    ...blocks.slice(1),
    {
      type: "message_delta",
      delta: { stop_reason: reply.stop_reason, stop_sequence: reply.stop_sequence ?? null },
      usage: { output_tokens: usage.output_tokens }
    },
    { type: "message_stop" }
  ]
}

const blockEvents = (block: ReplyBlock, index: number): ReadonlyArray<JsonRecord> => {
  const delta = (value: JsonRecord) => ({ type: "content_block_delta", index, delta: value })
  const open = (contentBlock: JsonRecord) => ({ type: "content_block_start", index, content_block: contentBlock })
  const close = { type: "content_block_stop", index }
  switch (block.type) {
    case "text":
      return [
        open({ type: "text", text: "" }),
        ...pieces(block.text).map((text) => delta({ type: "text_delta", text })),
        close
      ]
    case "tool_use": {
      const json = JSON.stringify(block.input)
      const half = Math.ceil(json.length / 2)
      return [
        open({ type: "tool_use", id: block.id, name: block.name, input: {} }),
        delta({ type: "input_json_delta", partial_json: "" }),
        delta({ type: "input_json_delta", partial_json: json.slice(0, half) }),
        delta({ type: "input_json_delta", partial_json: json.slice(half) }),
        close
      ]
    }
    case "thinking":
      return [
        open({ type: "thinking", thinking: "" }),
        ...pieces(block.thinking).map((thinking) => delta({ type: "thinking_delta", thinking })),
        delta({ type: "signature_delta", signature: block.signature }),
        close
      ]
  }
}

/** Word-sized pieces that concatenate back to the text. */
const pieces = (text: string): ReadonlyArray<string> => text.match(/\s*\S+\s*$|\s*\S+/g) ?? [text]
