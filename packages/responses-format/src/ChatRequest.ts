/**
 * A Responses request as the chat request every provider adapter speaks: `instructions` become
 * the system message, input items become messages (consecutive `function_call` items one
 * assistant turn with its `tool_calls`, each `function_call_output` a `tool` message), function
 * tools, `tool_choice`, `text.format` as `response_format`, `max_output_tokens` as `max_tokens`,
 * `reasoning.effort` as `reasoning_effort`. A stream always asks for usage, which
 * `response.completed` reports.
 *
 * What does not translate answers 400 naming the member: a built-in tool (`web_search`, …) or
 * an image by `file_id`, which only the vendor's own Responses endpoint knows.
 *
 * @example
 * import { ChatRequest, ResponsesRequest } from "@switchyard/responses-format"
 * const request = ResponsesRequest.decode({ model: "m", input: "hi" })
 */
import { InvalidInput } from "@switchyard/protocol"
import { Result } from "effect"
import * as ReasoningCarry from "./internal/ReasoningCarry.ts"
import type * as ResponsesRequest from "./ResponsesRequest.ts"

type Json = Record<string, unknown>
/** An input item that is not a reference: references are resolved before translation. */
export type Item = Exclude<ResponsesRequest.InputItem, ResponsesRequest.ItemReference>

const invalid = (param: string, rule: string) => new InvalidInput.InvalidInput({ message: `${param}: ${rule}`, param })

/** The request's own input as items; a string is one user message. */
export const inputItems = (request: ResponsesRequest.ResponsesRequest): ReadonlyArray<ResponsesRequest.InputItem> =>
  request.input === undefined
    ? []
    : typeof request.input === "string"
    ? [{ type: "message", role: "user", content: request.input }]
    : request.input

/**
 * The chat body for `items` (the conversation so far, then this request's input), with the
 * request's own settings. `param` of a failure points into `input` when `inputOffset` says where
 * the request's own items start.
 */
export const toChat = (
  request: ResponsesRequest.ResponsesRequest,
  items: ReadonlyArray<Item>,
  inputOffset: number
): Result.Result<Json, InvalidInput.InvalidInput> => {
  const problem = untranslatable(request, items, inputOffset)
  return problem === undefined ? Result.succeed(build(request, items)) : Result.fail(problem)
}

/** What only the vendor's own Responses endpoint knows, named by its member. */
const untranslatable = (
  request: ResponsesRequest.ResponsesRequest,
  items: ReadonlyArray<Item>,
  inputOffset: number
): InvalidInput.InvalidInput | undefined => {
  for (const [index, tool] of (request.tools ?? []).entries()) {
    if (tool.type !== "function") {
      return invalid(`tools[${index}].type`, `"${tool.type}" is a built-in tool only an openai target runs`)
    }
    if (typeof tool.name !== "string" || tool.name === "") return invalid(`tools[${index}].name`, "is required")
  }
  const choice = request.tool_choice
  if (typeof choice === "object" && (choice.type !== "function" || typeof choice.name !== "string")) {
    return invalid("tool_choice.type", `"${choice.type}" names a built-in tool only an openai target runs`)
  }
  for (const [index, item] of items.entries()) {
    if (item.type === "function_call" || item.type === "function_call_output" || item.type === "reasoning") continue
    if (typeof item.content === "string") continue
    for (const [part, content] of item.content.entries()) {
      if (content.type === "input_image" && typeof content.image_url !== "string") {
        return invalid(
          `input[${index - inputOffset}].content[${part}].image_url`,
          "is required: an image by file_id needs an openai target"
        )
      }
    }
  }
  return undefined
}

const build = (request: ResponsesRequest.ResponsesRequest, items: ReadonlyArray<Item>): Json => {
  const messages: Array<Json> = []
  if (typeof request.instructions === "string" && request.instructions !== "") {
    messages.push({ role: "system", content: request.instructions })
  }
  for (const item of items) addItem(messages, item)
  const body: Json = { model: request.model, messages }
  const tools = toolsOf(request)
  if (tools !== undefined) body.tools = tools
  if (request.tool_choice !== undefined) body.tool_choice = toolChoiceOf(request.tool_choice)
  if (request.parallel_tool_calls !== undefined && request.parallel_tool_calls !== null && tools !== undefined) {
    body.parallel_tool_calls = request.parallel_tool_calls
  }
  copy(request.max_output_tokens, "max_tokens", body)
  copy(request.temperature, "temperature", body)
  copy(request.top_p, "top_p", body)
  copy(request.user, "user", body)
  copy(request.reasoning?.effort, "reasoning_effort", body)
  const format = request.text?.format
  if (format !== undefined && format.type !== "text") body.response_format = responseFormatOf(format)
  if (request.stream === true) {
    body.stream = true
    body.stream_options = { include_usage: true }
  }
  return body
}

const copy = (value: unknown, name: string, body: Json): void => {
  if (value !== undefined && value !== null) body[name] = value
}

const addItem = (messages: Array<Json>, item: Item): void => {
  switch (item.type) {
    case "function_call": {
      const call = { id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } }
      const last = messages.at(-1)
      // one assistant turn holds its text, reasoning and every call it made
      if (last !== undefined && last.role === "assistant") {
        last.tool_calls = [...(Array.isArray(last.tool_calls) ? last.tool_calls : []), call]
      } else messages.push({ role: "assistant", content: null, tool_calls: [call] })
      return
    }
    case "function_call_output":
      messages.push({
        role: "tool",
        tool_call_id: item.call_id,
        content: typeof item.output === "string" ? item.output : textOf(item.output)
      })
      return
    case "reasoning": {
      const blocks = ReasoningCarry.open(item.encrypted_content)
      // only a provider's own signed blocks mean anything to it; a summary alone is not sent back
      if (blocks.length > 0) messages.push({ role: "assistant", content: null, content_blocks: blocks, tool_calls: [] })
      return
    }
    default:
      addMessage(messages, item)
  }
}

const addMessage = (messages: Array<Json>, item: ResponsesRequest.MessageItem): void => {
  if (item.role !== "assistant") {
    messages.push({ role: item.role, content: item.role === "user" ? userContent(item) : textContent(item) })
    return
  }
  const text = textContent(item)
  const last = messages.at(-1)
  // a reasoning item played back opens the assistant turn its text belongs to
  if (last !== undefined && last.role === "assistant" && last.content === null) last.content = text
  else messages.push({ role: "assistant", content: text })
}

const textOf = (parts: ReadonlyArray<ResponsesRequest.ContentPart>): string =>
  parts.map((part) => ("text" in part ? part.text : "refusal" in part ? part.refusal : "")).join("")

const textContent = (item: ResponsesRequest.MessageItem): string =>
  typeof item.content === "string" ? item.content : textOf(item.content)

const userContent = (item: ResponsesRequest.MessageItem): string | ReadonlyArray<Json> => {
  if (typeof item.content === "string") return item.content
  return item.content.map((part): Json => {
    switch (part.type) {
      case "input_image":
        return {
          type: "image_url",
          image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) }
        }
      case "input_file":
        return {
          type: "file",
          file: {
            ...(part.file_data !== undefined ? { file_data: part.file_data } : {}),
            ...(typeof part.file_id === "string" ? { file_id: part.file_id } : {}),
            ...(part.filename !== undefined ? { filename: part.filename } : {})
          }
        }
      case "refusal":
        return { type: "text", text: part.refusal }
      default:
        return { type: "text", text: part.text }
    }
  })
}

const toolsOf = (request: ResponsesRequest.ResponsesRequest): ReadonlyArray<Json> | undefined => {
  if (request.tools === undefined || request.tools.length === 0) return undefined
  return request.tools.map((tool) => {
    const fn: Json = { name: tool.name }
    if (typeof tool.description === "string") fn.description = tool.description
    if (typeof tool.parameters === "object" && tool.parameters !== null) fn.parameters = tool.parameters
    if (typeof tool.strict === "boolean") fn.strict = tool.strict
    return { type: "function", function: fn }
  })
}

const toolChoiceOf = (choice: ResponsesRequest.ToolChoice): unknown =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } }

const responseFormatOf = (format: ResponsesRequest.TextFormat): Json =>
  format.type === "json_schema"
    ? {
      type: "json_schema",
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description !== undefined ? { description: format.description } : {}),
        ...(typeof format.strict === "boolean" ? { strict: format.strict } : {})
      }
    }
    : { type: "json_object" }
