/**
 * OpenAI-format chat request → Bedrock Converse request body, as the Converse API reference
 * defines it: `system: [{text}]`, `messages: [{role: "user"|"assistant", content: [ContentBlock]}]`
 * where roles alternate (consecutive turns of one role are merged), tool results travel in a user
 * turn, images only as base64 `bytes`, `toolConfig`, `inferenceConfig`, and
 * `additionalModelRequestFields` for model-specific fields (Claude's `thinking`).
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { ChatRequestView } from "@switchyard/protocol"
import { Effect } from "effect"

type ChatRequest = ChatRequestView.ChatRequestView
type Message = ChatRequestView.Message

type Json = GatewayRequest.JsonObject

export interface ConverseCall {
  readonly model: string
  readonly body: Json
  readonly includeUsage: boolean
}

const invalid = (message: string, param: string | null) => new GatewayError.InvalidRequest({ message, param })

/** OpenAI parameter → `inferenceConfig` member; the first one given wins (max_completion_tokens first). */
const inferenceFields = [
  ["max_completion_tokens", "maxTokens"],
  ["max_tokens", "maxTokens"],
  ["temperature", "temperature"],
  ["top_p", "topP"]
] as const

/** Image formats Converse accepts (`ImageBlock.format`), by MIME subtype. */
const imageFormats: Readonly<Record<string, string>> = {
  png: "png",
  jpeg: "jpeg",
  jpg: "jpeg",
  gif: "gif",
  webp: "webp"
}

/** Decodes the body and builds the Converse request, refusing what Converse cannot honour. */
export const fromChatBody = (body: Json): Effect.Effect<ConverseCall, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    const request = yield* Effect.fromResult(ChatRequestView.decode(body)).pipe(
      Effect.mapError((error) =>
        invalid(`bedrock: the request does not fit the chat format: ${error.message}`, error.param)
      )
    )
    yield* refuseUnsupported(request)
    const system: Array<Json> = []
    const turns: Array<{ role: "user" | "assistant"; content: Array<Json> }> = []
    for (const [index, message] of request.messages.entries()) {
      if (message.role === "system" || message.role === "developer") {
        system.push(...(yield* contentBlocks(message.content, index, false)))
        continue
      }
      const turn = yield* turnOf(message, index)
      const last = turns.at(-1)
      if (last !== undefined && last.role === turn.role) last.content.push(...turn.content)
      else turns.push({ role: turn.role, content: [...turn.content] })
    }
    const converse: Record<string, unknown> = { messages: turns }
    if (system.length > 0) converse.system = system
    const inference = inferenceConfig(request)
    if (Object.keys(inference).length > 0) converse.inferenceConfig = inference
    const toolConfig = toolConfigOf(request)
    if (toolConfig !== undefined) converse.toolConfig = toolConfig
    const thinking = request.thinking ?? undefined
    if (thinking !== undefined) {
      converse.additionalModelRequestFields = {
        thinking: { type: thinking.type, budget_tokens: thinking.budget_tokens }
      }
    }
    return { model: request.model, body: converse, includeUsage: request.stream_options?.include_usage === true }
  })

const refuseUnsupported = (request: ChatRequest): Effect.Effect<void, GatewayError.InvalidRequest> => {
  if (typeof request.n === "number" && request.n > 1) {
    return Effect.fail(invalid("n: bedrock's Converse API returns one choice; n > 1 is not supported", "n"))
  }
  if (request.logprobs === true) {
    return Effect.fail(invalid("logprobs: bedrock's Converse API does not return log probabilities", "logprobs"))
  }
  const format = request.response_format?.type
  if (format !== undefined && format !== "text") {
    return Effect.fail(
      invalid(`response_format: "${format}" is not supported by bedrock's Converse API`, "response_format")
    )
  }
  if (request.functions !== undefined || request.function_call !== undefined) {
    return Effect.fail(invalid("functions: use tools and tool_choice with bedrock", "functions"))
  }
  return Effect.void
}

const inferenceConfig = (request: ChatRequest): Json => {
  const config: Record<string, unknown> = {}
  for (const [from, to] of inferenceFields) {
    const value = request[from]
    if (typeof value === "number" && config[to] === undefined) config[to] = value
  }
  if (typeof request.stop === "string") config.stopSequences = [request.stop]
  else if (Array.isArray(request.stop) && request.stop.length > 0) config.stopSequences = request.stop
  return config
}

/** `tool_choice: "none"` omits the tools, so the model cannot call one. */
const toolConfigOf = (request: ChatRequest): Json | undefined => {
  const given = request.tools ?? []
  if (given.length === 0 || request.tool_choice === "none") return undefined
  const tools = given.map((tool) => ({
    toolSpec: {
      name: tool.function.name,
      ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
      inputSchema: { json: tool.function.parameters ?? { type: "object", properties: {} } }
    }
  }))
  const choice = request.tool_choice ?? undefined
  const toolChoice = choice === undefined || choice === "auto"
    ? { auto: {} }
    : choice === "required"
    ? { any: {} }
    : { tool: { name: choice.function.name } }
  return { tools, toolChoice }
}

const turnOf = (
  message: Message,
  index: number
): Effect.Effect<{ role: "user" | "assistant"; content: Array<Json> }, GatewayError.InvalidRequest> => {
  switch (message.role) {
    case "user":
      return Effect.map(contentBlocks(message.content, index, true), (content) => ({ role: "user", content }))
    case "assistant":
      return Effect.gen(function*() {
        const content = yield* contentBlocks(message.content, index, false)
        for (const call of message.tool_calls ?? []) content.push({ toolUse: yield* toolUseOf(call, index) })
        return { role: "assistant" as const, content }
      })
    case "tool":
      return Effect.succeed({ role: "user", content: [{ toolResult: toolResultOf(message) }] })
    default:
      return Effect.fail(
        invalid(`messages[${index}].role: "${message.role}" is not supported by bedrock`, `messages[${index}].role`)
      )
  }
}

const toolUseOf = (call: NonNullable<Message["tool_calls"]>[number], index: number) => {
  let input: unknown
  try {
    input = JSON.parse(call.function.arguments === "" ? "{}" : call.function.arguments)
  } catch {
    input = undefined
  }
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? Effect.succeed({ toolUseId: call.id, name: call.function.name, input })
    : Effect.fail(invalid(
      `messages[${index}].tool_calls: arguments of "${call.function.name}" must be a JSON object`,
      `messages[${index}].tool_calls`
    ))
}

/** A result that is a JSON object goes as a `json` block, anything else as `text`. */
const toolResultOf = (message: Message): Json => {
  const text = typeof message.content === "string"
    ? message.content
    : (message.content ?? []).map((part) => ("text" in part ? part.text : "")).join("")
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const block = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? { json: parsed } : { text }
  return { toolUseId: message.tool_call_id ?? "", content: [block] }
}

const contentBlocks = (
  content: Message["content"],
  index: number,
  imagesAllowed: boolean
): Effect.Effect<Array<Json>, GatewayError.InvalidRequest> => {
  // Converse rejects blank text blocks, so empty strings are left out
  if (content === undefined || content === null) return Effect.succeed([])
  if (typeof content === "string") return Effect.succeed(content === "" ? [] : [{ text: content }])
  return Effect.map(
    Effect.forEach(
      content,
      (part, partIndex) => partBlock(part, `messages[${index}].content[${partIndex}]`, imagesAllowed)
    ),
    (blocks) => blocks.flat()
  )
}

const partBlock = (
  part: ChatRequestView.ContentPart,
  path: string,
  imagesAllowed: boolean
): Effect.Effect<Array<Json>, GatewayError.InvalidRequest> => {
  if ("text" in part) return Effect.succeed(part.text === "" ? [] : [{ text: part.text }])
  if ("refusal" in part) return Effect.succeed([{ text: part.refusal }])
  if ("image_url" in part && imagesAllowed) return Effect.map(imageBlock(part.image_url.url, path), (b) => [b])
  return Effect.fail(invalid(`${path}: "${part.type}" parts are not supported by bedrock here`, path))
}

const dataUrl = /^data:image\/([a-z]+);base64,(.+)$/s

const imageBlock = (url: string, path: string): Effect.Effect<Json, GatewayError.InvalidRequest> => {
  const match = dataUrl.exec(url)
  if (match === null) {
    return Effect.fail(invalid(
      `${path}: bedrock's Converse API takes images only as base64 data: URLs (data:image/png;base64,…), not links`,
      path
    ))
  }
  const format = imageFormats[match[1] ?? ""]
  if (format === undefined) {
    return Effect.fail(invalid(`${path}: bedrock takes png, jpeg, gif or webp images (got image/${match[1]})`, path))
  }
  return Effect.succeed({ image: { format, source: { bytes: match[2] ?? "" } } })
}
