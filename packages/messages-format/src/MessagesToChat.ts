/**
 * A Messages request as the gateway's internal chat request, which every provider adapter speaks.
 * Nothing the Anthropic adapter needs to rebuild the request in Anthropic's own shape is lost:
 * system and text blocks keep `cache_control`, images and documents become `data:` URLs (or
 * stay URLs), tool-use ids become tool-call ids, earlier thinking blocks travel with their
 * signatures in the assistant message's `content_blocks` (see `ChatReasoning`), `top_k` and
 * `thinking` keep their names. What chat cannot say is left out: `is_error` of a tool result
 * and the images inside one (their text is kept).
 */
import type { GatewayRequest } from "@switchyard/core"
import type * as MessagesRequest from "./MessagesRequest.ts"

type Json = Record<string, unknown>

/** The chat body of a Messages request (`stream` as asked; usage is always asked for). */
export const toChatRequest = (request: MessagesRequest.MessagesRequest): GatewayRequest.JsonObject => {
  const body: Json = { model: request.model, messages: chatMessages(request), max_tokens: request.max_tokens }
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) body.stop = request.stop_sequences
  if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.top_p !== undefined) body.top_p = request.top_p
  if (request.top_k !== undefined) body.top_k = request.top_k
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(chatTool)
    if (request.tool_choice !== undefined) {
      body.tool_choice = chatToolChoice(request.tool_choice)
      if (
        "disable_parallel_tool_use" in request.tool_choice && request.tool_choice.disable_parallel_tool_use === true
      ) {
        body.parallel_tool_calls = false
      }
    }
  }
  if (request.thinking?.type === "enabled") body.thinking = request.thinking
  const user = request.metadata?.user_id
  if (typeof user === "string") body.user = user
  if (request.stream === true) {
    body.stream = true
    // message_start and message_delta carry usage: the chat stream must end with it
    body.stream_options = { include_usage: true }
  }
  return body
}

/** The chat messages of the system prompt and the turns. */
export const chatMessages = (
  request: Pick<MessagesRequest.MessagesRequest, "system" | "messages">
): ReadonlyArray<Json> => {
  const messages: Array<Json> = []
  const system = request.system
  if (typeof system === "string" && system !== "") messages.push({ role: "system", content: system })
  else if (typeof system === "object" && system.length > 0) {
    messages.push({ role: "system", content: system.map(textPart) })
  }
  for (const message of request.messages) {
    if (message.role === "assistant") messages.push(assistantMessage(message.content))
    else messages.push(...userMessages(message.content))
  }
  return messages
}

const textPart = (block: MessagesRequest.TextBlock): Json =>
  block.cache_control === undefined
    ? { type: "text", text: block.text }
    : { type: "text", text: block.text, cache_control: block.cache_control }

const dataUrl = (source: { readonly media_type: string; readonly data: string }) =>
  `data:${source.media_type};base64,${source.data}`

const imagePart = (block: MessagesRequest.ImageBlock): Json => {
  const url = block.source.type === "base64" ? dataUrl(block.source) : block.source.url
  return block.cache_control === undefined
    ? { type: "image_url", image_url: { url } }
    : { type: "image_url", image_url: { url }, cache_control: block.cache_control }
}

const documentPart = (block: MessagesRequest.DocumentBlock): Json => {
  const source = block.source
  if (source.type === "text") return { type: "text", text: source.data }
  return { type: "file", file: { file_data: source.type === "base64" ? dataUrl(source) : source.url } }
}

/**
 * A user turn: its tool results first, each a chat `tool` message (chat wants them right after
 * the assistant's calls, Anthropic at the head of the turn), then the rest as one user message.
 */
const userMessages = (content: MessagesRequest.Message["content"]): ReadonlyArray<Json> => {
  if (typeof content === "string") return [{ role: "user", content }]
  const tools: Array<Json> = []
  const parts: Array<Json> = []
  for (const block of content) {
    switch (block.type) {
      case "text":
        parts.push(textPart(block))
        break
      case "image":
        parts.push(imagePart(block))
        break
      case "document":
        parts.push(documentPart(block))
        break
      case "tool_result":
        tools.push({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block.content) })
        break
      // a user turn holds no calls nor thinking: Anthropic refuses them, chat has no place for them
      default:
        break
    }
  }
  return parts.length > 0 ? [...tools, { role: "user", content: parts }] : tools
}

const toolResultText = (content: MessagesRequest.ToolResultBlock["content"]): string => {
  if (content === undefined) return ""
  if (typeof content === "string") return content
  return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n")
}

const assistantMessage = (content: MessagesRequest.Message["content"]): Json => {
  if (typeof content === "string") return { role: "assistant", content }
  const texts: Array<MessagesRequest.TextBlock> = []
  const calls: Array<Json> = []
  const reasoning: Array<Json> = []
  for (const block of content) {
    if (block.type === "text") texts.push(block)
    else if (block.type === "tool_use") {
      calls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.input) }
      })
    } else if (block.type === "thinking") {
      reasoning.push({ type: "thinking", thinking: block.thinking, signature: block.signature })
    } else if (block.type === "redacted_thinking") reasoning.push({ type: "redacted_thinking", data: block.data })
  }
  const cached = texts.some((block) => block.cache_control !== undefined)
  const text = texts.map((block) => block.text).join("")
  const message: Json = {
    role: "assistant",
    content: cached ? texts.map(textPart) : text === "" && calls.length > 0 ? null : text
  }
  if (calls.length > 0) message.tool_calls = calls
  if (reasoning.length > 0) message.content_blocks = reasoning
  return message
}

const chatTool = (tool: MessagesRequest.Tool): Json => {
  const fn: Json = { name: tool.name, parameters: tool.input_schema }
  if (tool.description !== undefined) fn.description = tool.description
  return tool.cache_control === undefined
    ? { type: "function", function: fn }
    : { type: "function", function: fn, cache_control: tool.cache_control }
}

const chatToolChoice = (choice: MessagesRequest.ToolChoice): unknown => {
  switch (choice.type) {
    case "auto":
      return "auto"
    case "any":
      return "required"
    case "none":
      return "none"
    case "tool":
      return { type: "function", function: { name: choice.name } }
  }
}
