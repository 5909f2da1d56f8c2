import { arrayField, contentText, countWords, field, stringField } from "./JsonFields.ts"

/** What the fake needs from a chat completion request. */
export interface ChatRequest {
  readonly model: string
  readonly replyText: string
  readonly promptTokens: number
  /** The function to call, when the request has tools and tool_choice allows one. */
  readonly toolName: string | undefined
  readonly stream: boolean
  readonly includeUsage: boolean
}

export interface ReplyIdentity {
  readonly id: string
  readonly created: number
}

export const readChatRequest = (body: unknown): ChatRequest => {
  const messages = arrayField(body, "messages")
  const lastUser = messages.findLast((message) => stringField(message, "role") === "user")
  const promptText = messages.map((message) => contentText(field(message, "content"))).join(" ")
  return {
    model: stringField(body, "model") ?? "fake-model",
    replyText: `echo: ${contentText(field(lastUser, "content"))}`,
    promptTokens: countWords(promptText),
    toolName: chosenToolName(body),
    stream: field(body, "stream") === true,
    includeUsage: field(field(body, "stream_options"), "include_usage") === true
  }
}

const chosenToolName = (body: unknown): string | undefined => {
  const tools = arrayField(body, "tools")
  const choice = field(body, "tool_choice")
  if (tools.length === 0 || choice === "none") return undefined
  const named = stringField(field(choice, "function"), "name")
  return named ?? stringField(field(tools[0], "function"), "name") ?? "tool"
}

const usage = (request: ChatRequest) => {
  const completionTokens = request.toolName === undefined ? countWords(request.replyText) : 1
  return {
    prompt_tokens: request.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: request.promptTokens + completionTokens
  }
}

const toolCallId = (identity: ReplyIdentity) => `call_${identity.id}`

/** A `chat.completion` object. */
export const chatCompletion = (request: ChatRequest, identity: ReplyIdentity) => {
  const message = request.toolName === undefined
    ? { role: "assistant", content: request.replyText, refusal: null }
    : {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [{
        id: toolCallId(identity),
        type: "function",
        function: { name: request.toolName, arguments: "{}" }
      }]
    }
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: request.model,
    system_fingerprint: null,
    choices: [{
      index: 0,
      message,
      logprobs: null,
      finish_reason: request.toolName === undefined ? "stop" : "tool_calls"
    }],
    usage: usage(request)
  }
}

/** The SSE events of a streamed reply, from the role chunk to `data: [DONE]`. */
export const chatCompletionEvents = (request: ChatRequest, identity: ReplyIdentity): ReadonlyArray<string> => {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    id: identity.id,
    object: "chat.completion.chunk",
    created: identity.created,
    model: request.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(request.includeUsage ? { usage: null } : {})
  })
  const chunks = request.toolName === undefined
    ? [
      chunk({ role: "assistant", content: "", refusal: null }, null),
      ...contentPieces(request.replyText).map((piece) => chunk({ content: piece }, null)),
      chunk({}, "stop")
    ]
    : [
      chunk({ role: "assistant", content: null, refusal: null }, null),
      chunk({
        tool_calls: [{
          index: 0,
          id: toolCallId(identity),
          type: "function",
          function: { name: request.toolName, arguments: "" }
        }]
      }, null),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "{}" } }] }, null),
      chunk({}, "tool_calls")
    ]
  const usageChunk = request.includeUsage
    ? [{
      id: identity.id,
      object: "chat.completion.chunk",
      created: identity.created,
      model: request.model,
      system_fingerprint: null,
      choices: [],
      usage: usage(request)
    }]
    : []
  return [...chunks, ...usageChunk].map(sseEvent).concat("data: [DONE]\n\n")
}

/** Splits the reply into word-sized deltas that concatenate back to the reply. */
const contentPieces = (text: string): ReadonlyArray<string> => text.match(/\s*\S+/g) ?? [text]

const sseEvent = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`
