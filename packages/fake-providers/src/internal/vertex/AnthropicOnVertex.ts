/**
 * Claude on Vertex AI as the fake serves it (cloud.google.com/vertex-ai/generative-ai/docs/
 * partner-models/claude): the Messages body without `model`, with `anthropic_version:
 * "vertex-2023-10-16"`; answers and SSE events are Anthropic's (docs.anthropic.com, "Streaming").
 */
import type { ServerResponse } from "node:http"
import { checkCountRequest, inputTokens } from "../anthropic/TokenCountRequest.ts"
import { arrayField, contentText, countWords, field, isRecord } from "../JsonFields.ts"

export const checkRawPredict = (body: unknown, stream: boolean): string | undefined => {
  if (!isRecord(body)) return "messages: the body must be a JSON object"
  if (body.anthropic_version !== "vertex-2023-10-16") return "anthropic_version: must be \"vertex-2023-10-16\""
  if (body.model !== undefined) return "model: Extra inputs are not permitted"
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required"
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required"
  if (stream && body.stream !== true) return "stream: streamRawPredict needs \"stream\": true"
  return undefined
}

/** Anthropic's error shape. */
export const anthropicError = (type: string, message: string) => ({ type: "error", error: { type, message } })

const replyOf = (body: unknown) => {
  const last = arrayField(body, "messages").at(-1)
  const text = `You said: ${contentText(field(last, "content"))}`
  return { text, input: countWords(contentText(field(last, "content"))), output: countWords(text) }
}

export const messageReply = (body: unknown, model: string, id: string) => {
  const reply = replyOf(body)
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: reply.text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: reply.input, output_tokens: reply.output }
  }
}

export const writeMessageEvents = (response: ServerResponse, body: unknown, model: string, id: string): void => {
  const reply = replyOf(body)
  const message = { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null }
  const events: ReadonlyArray<readonly [string, unknown]> = [
    ["message_start", {
      type: "message_start",
      message: { ...message, usage: { input_tokens: reply.input, output_tokens: 1 } }
    }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply.text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: reply.output }
    }],
    ["message_stop", { type: "message_stop" }]
  ]
  response.writeHead(200, { "content-type": "text/event-stream" })
  for (const [name, data] of events) response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)
  response.end()
}

/**
 * `…/publishers/anthropic/models/count-tokens:rawPredict`: Anthropic's count body with its `model`
 * and `anthropic_version`, answered `{input_tokens}` with the fake Anthropic API's count.
 */
export const countTokens = (body: unknown): { readonly problem: string } | { readonly inputTokens: number } => {
  if (!isRecord(body)) return { problem: "messages: the body must be a JSON object" }
  const { anthropic_version: version, ...counted } = body
  if (version !== "vertex-2023-10-16") return { problem: "anthropic_version: must be \"vertex-2023-10-16\"" }
  const problem = checkCountRequest(counted)
  return problem === undefined ? { inputTokens: inputTokens(counted) } : { problem }
}
