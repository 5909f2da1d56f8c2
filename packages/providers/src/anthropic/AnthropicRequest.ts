/**
 * An OpenAI-format chat request as the body of Anthropic's `POST /v1/messages`. Documented rules
 * relied on (docs.anthropic.com, "Messages" reference): `max_tokens` is required; `system` is a
 * top-level string or text blocks; `stop_sequences`; `temperature` and `top_p` in 0..1; `top_k`;
 * tools are `{ name, description, input_schema }`; `tool_choice` is `{ type: "auto" | "any" |
 * "tool" | "none" }` with `disable_parallel_tool_use`; `metadata.user_id`; `thinking` is
 * `{ type: "enabled", budget_tokens }` with `budget_tokens` below `max_tokens`; one answer per call.
 */
import type { GatewayError, GatewayRequest } from "@switchyard/core"
import { ChatRequestView } from "@switchyard/protocol"
import { Effect } from "effect"
import { type Block, invalid, toConversation } from "./AnthropicMessages.ts"

/** `max_tokens` when the request names none: Anthropic requires one. */
export const defaultMaxTokens = 4096

/** What the adapter needs besides the body. */
export interface MappedRequest {
  readonly body: Readonly<Record<string, unknown>>
  readonly includeUsage: boolean
  /** Headers the client's own Messages request asks to be sent with it (`anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>
}

/** Maps the body, or refuses a parameter Anthropic cannot honour with a 400 that names it. */
export const toAnthropicRequest = (
  body: GatewayRequest.JsonObject,
  stream: boolean
): Effect.Effect<MappedRequest, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    const request = yield* Effect.fromResult(ChatRequestView.decode(body)).pipe(
      Effect.mapError((error) => invalid(`the request does not match the chat format: ${error.message}`, error.param))
    )
    yield* refuseUnsupported(request)
    const { system, turns } = yield* toConversation(request.messages)
    const thinking = request.thinking ?? undefined
    const tools = toolsOf(request)
    const mapped: Record<string, unknown> = {
      model: request.model,
      max_tokens: maxTokensOf(request),
      messages: turns
    }
    if (system.length > 0) mapped.system = system
    const stop = request.stop ?? undefined
    if (stop !== undefined) mapped.stop_sequences = typeof stop === "string" ? [stop] : stop
    for (const key of ["temperature", "top_p", "top_k"] as const) {
      const value = request[key]
      if (value !== undefined && value !== null) mapped[key] = value
    }
    if (tools.length > 0) {
      mapped.tools = tools
      const choice = toolChoiceOf(request)
      if (choice !== undefined) mapped.tool_choice = choice
    }
    if (thinking !== undefined) mapped.thinking = thinking
    if (request.user !== undefined && request.user !== null) mapped.metadata = { user_id: request.user }
    if (stream) mapped.stream = true
    return { body: mapped, includeUsage: request.stream_options?.include_usage === true }
  })

const refuseUnsupported = (
  request: ChatRequestView.ChatRequestView
): Effect.Effect<void, GatewayError.InvalidRequest> => {
  if ((request.n ?? 1) !== 1) return Effect.fail(invalid("n must be 1: Anthropic returns one choice per call", "n"))
  if (request.logprobs === true) return Effect.fail(invalid("logprobs are not available from Anthropic", "logprobs"))
  const format = request.response_format?.type
  if (format !== undefined && format !== "text") {
    return Effect.fail(invalid(`response_format "${format}" is not supported by Anthropic`, "response_format"))
  }
  // top_k is no member of the chat format, so the edge did not check it
  if (request.top_k !== undefined && request.top_k !== null && typeof request.top_k !== "number") {
    return Effect.fail(invalid("top_k must be a number", "top_k"))
  }
  const temperature = request.temperature ?? undefined
  if (temperature !== undefined && (temperature < 0 || temperature > 1)) {
    return Effect.fail(invalid("temperature must be between 0 and 1 for Anthropic", "temperature"))
  }
  return Effect.void
}

/** The caller's limit, or the default; raised above the thinking budget, which must stay below it. */
const maxTokensOf = (request: ChatRequestView.ChatRequestView): number => {
  const given = request.max_tokens ?? request.max_completion_tokens ?? undefined
  if (given !== undefined) return given
  const budget = request.thinking?.budget_tokens
  return budget !== undefined && budget >= defaultMaxTokens ? budget + defaultMaxTokens : defaultMaxTokens
}

const toolsOf = (request: ChatRequestView.ChatRequestView): ReadonlyArray<Block> => {
  const functions = request.tools?.map((tool) => ({ ...tool.function, cache_control: tool.cache_control })) ??
    request.functions ?? []
  return functions.map((fn) => {
    const tool: Record<string, unknown> = {
      name: fn.name,
      input_schema: fn.parameters ?? { type: "object", properties: {} }
    }
    if (fn.description !== undefined) tool.description = fn.description
    if ("cache_control" in fn && fn.cache_control !== undefined) tool.cache_control = fn.cache_control
    return tool
  })
}

const choiceTypes = { auto: "auto", required: "any", none: "none" } as const

/** `tool_choice` (or the deprecated `function_call`); `parallel_tool_calls: false` disables parallel use. */
const toolChoiceOf = (request: ChatRequestView.ChatRequestView): Block | undefined => {
  const choice = request.tool_choice ?? functionChoice(request.function_call ?? undefined)
  const base: Record<string, unknown> | undefined = choice === undefined
    ? undefined
    : typeof choice === "string"
    ? { type: choiceTypes[choice] }
    : { type: "tool", name: choice.function.name }
  if (request.parallel_tool_calls !== false || base?.type === "none") return base
  return { ...(base ?? { type: "auto" }), disable_parallel_tool_use: true }
}

const functionChoice = (
  option: "none" | "auto" | { readonly name: string } | undefined
): ChatRequestView.ToolChoice | undefined =>
  option === undefined || typeof option === "string" ? option : { function: { name: option.name } }
