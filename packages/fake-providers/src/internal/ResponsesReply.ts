/**
 * `POST /v1/responses` as OpenAI answers it: a `response` object echoing the last user text (or
 * calling the first function tool when the request has tools), and the same answer as the
 * vendor's event stream (`event:` and `data:` lines, `sequence_number` from 0, no `[DONE]`).
 */
import type { ReplyIdentity } from "./ChatCompletionReply.ts"
import { arrayField, contentText, countWords, field, isRecord, stringField } from "./JsonFields.ts"

interface ResponsesRequest {
  readonly model: string
  readonly replyText: string
  readonly promptTokens: number
  readonly toolName: string | undefined
  readonly stream: boolean
}

const readRequest = (body: unknown): ResponsesRequest => {
  const input = field(body, "input")
  const items = typeof input === "string" ? [{ role: "user", content: input }] : arrayField(body, "input")
  const lastUser = items.findLast((item) => stringField(item, "role") === "user")
  const texts = items.map((item) => textOf(field(item, "content")))
  const instructions = stringField(body, "instructions") ?? ""
  const tool = arrayField(body, "tools").find((candidate) => stringField(candidate, "type") === "function")
  return {
    model: stringField(body, "model") ?? "fake-model",
    replyText: `echo: ${textOf(field(lastUser, "content"))}`,
    promptTokens: countWords([instructions, ...texts].join(" ")),
    toolName: field(body, "tool_choice") === "none" ? undefined : stringField(tool, "name"),
    stream: field(body, "stream") === true
  }
}

/** Text of a string content or of `input_text` / `output_text` parts. */
const textOf = (content: unknown): string =>
  Array.isArray(content)
    ? content.map((part) => (isRecord(part) ? stringField(part, "text") ?? "" : "")).join("")
    : contentText(content)

const outputOf = (request: ResponsesRequest, identity: ReplyIdentity) =>
  request.toolName === undefined
    ? {
      type: "message",
      id: `msg_${identity.id}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: request.replyText, annotations: [], logprobs: [] }]
    }
    : {
      type: "function_call",
      id: `fc_${identity.id}`,
      status: "completed",
      call_id: `call_${identity.id}`,
      name: request.toolName,
      arguments: "{}"
    }

const responseOf = (
  request: ResponsesRequest,
  identity: ReplyIdentity,
  status: string,
  output: ReadonlyArray<unknown>
) => {
  const completion = request.toolName === undefined ? countWords(request.replyText) : 1
  return {
    id: `resp_${identity.id}`,
    object: "response",
    created_at: identity.created,
    status,
    error: null,
    incomplete_details: null,
    model: request.model,
    output,
    parallel_tool_calls: true,
    store: false,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    usage: status === "completed"
      ? {
        input_tokens: request.promptTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: completion,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: request.promptTokens + completion
      }
      : null
  }
}

export const isStreamed = (body: unknown): boolean => readRequest(body).stream

/** The complete `response` object. */
export const response = (body: unknown, identity: ReplyIdentity) => {
  const request = readRequest(body)
  return responseOf(request, identity, "completed", [outputOf(request, identity)])
}

/** The vendor's event stream for the same answer. */
export const events = (body: unknown, identity: ReplyIdentity): ReadonlyArray<string> => {
  const request = readRequest(body)
  const item = outputOf(request, identity)
  const sent: Array<string> = []
  const send = (type: string, fields: Record<string, unknown>) =>
    sent.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sent.length, ...fields })}\n\n`)
  const inProgress = responseOf(request, identity, "in_progress", [])
  send("response.created", { response: inProgress })
  send("response.in_progress", { response: inProgress })
  const at = { item_id: item.id, output_index: 0 }
  if (item.type === "message") {
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } })
    send("response.content_part.added", {
      ...at,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [], logprobs: [] }
    })
    for (const piece of request.replyText.match(/\s*\S+/g) ?? [request.replyText]) {
      send("response.output_text.delta", { ...at, content_index: 0, delta: piece, logprobs: [] })
    }
    send("response.output_text.done", { ...at, content_index: 0, text: request.replyText, logprobs: [] })
    const part = { type: "output_text", text: request.replyText, annotations: [], logprobs: [] }
    send("response.content_part.done", { ...at, content_index: 0, part })
  } else {
    send("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", arguments: "" } })
    send("response.function_call_arguments.delta", { ...at, delta: item.arguments })
    send("response.function_call_arguments.done", { ...at, arguments: item.arguments })
  }
  send("response.output_item.done", { output_index: 0, item })
  send("response.completed", { response: responseOf(request, identity, "completed", [item]) })
  return sent
}
