/**
 * The fake's check of a `POST /v1/messages` body, as docs.anthropic.com's "Messages" reference
 * defines it: the first problem found, worded as Anthropic words it, or undefined when the body is
 * valid. Checked: top-level members (unknown ones are refused), `model`, `max_tokens`, `messages`
 * (roles, blocks, tool results answering the previous turn's tool uses), `system`, sampling bounds,
 * `stop_sequences`, `tools`, `tool_choice`, `thinking`, `metadata`.
 */
import { arrayField, field, isRecord, type JsonRecord, stringField } from "../JsonFields.ts"

const topLevel = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "metadata",
  "stop_sequences",
  "stream",
  "temperature",
  "top_p",
  "top_k",
  "tools",
  "tool_choice",
  "thinking",
  "service_tier"
])
const mediaTypes = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"])

export const checkMessagesRequest = (body: unknown): string | undefined => {
  if (!isRecord(body)) return "body: Input should be an object"
  for (const key of Object.keys(body)) if (!topLevel.has(key)) return `${key}: Extra inputs are not permitted`
  if (typeof body.model !== "string" || body.model === "") return "model: Field required"
  if (!isPositiveInt(body.max_tokens)) return "max_tokens: Field required"
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required"
  return checkSystem(body.system) ?? checkMessages(body.messages) ?? checkSampling(body) ?? checkTools(body) ??
    checkThinking(body)
}

const isPositiveInt = (value: unknown): boolean => Number.isInteger(value) && typeof value === "number" && value >= 1

const checkSystem = (system: unknown): string | undefined => {
  if (system === undefined || typeof system === "string") return undefined
  if (!Array.isArray(system)) return "system: Input should be a valid string or a list of text blocks"
  return system.map((block, index) => checkText(block, `system.${index}`)).find((problem) => problem !== undefined)
}

const checkText = (block: unknown, path: string): string | undefined =>
  stringField(block, "type") !== "text" || typeof field(block, "text") !== "string"
    ? `${path}: Input should be a text block`
    : field(block, "text") === ""
    ? `${path}: text content blocks must be non-empty`
    : undefined

const checkMessages = (messages: ReadonlyArray<unknown>): string | undefined => {
  let pendingToolUses: ReadonlyArray<string> = []
  for (const [index, message] of messages.entries()) {
    const role = stringField(message, "role")
    if (role === "system") {
      return `messages: Unexpected role "system". The Messages API accepts a top-level \`system\` parameter, not "system" as an input message role.`
    }
    if (role !== "user" && role !== "assistant") return `messages.${index}.role: Input should be 'user' or 'assistant'`
    const content = field(message, "content")
    if (typeof content === "string") {
      if (pendingToolUses.length > 0) return toolResultsMissing(index, pendingToolUses)
      continue
    }
    if (!Array.isArray(content)) return `messages.${index}.content: Field required`
    const blocks = content.filter(isRecord)
    const problem = blocks.map((block, at) => checkBlock(block, role, `messages.${index}.content.${at}`))
      .find((found) => found !== undefined)
    if (problem !== undefined) return problem
    const results = blocks.filter((block) => block.type === "tool_result").map((block) => String(block.tool_use_id))
    const unexpected = results.find((id) => !pendingToolUses.includes(id))
    if (unexpected !== undefined) {
      return `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${unexpected}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`
    }
    const missing = pendingToolUses.filter((id) => !results.includes(id))
    if (missing.length > 0) return toolResultsMissing(index, missing)
    pendingToolUses = blocks.filter((block) => block.type === "tool_use").map((block) => String(block.id))
  }
  return undefined
}

const toolResultsMissing = (index: number, ids: ReadonlyArray<string>) =>
  `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${
    ids.join(", ")
  }. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`

const checkBlock = (block: JsonRecord, role: string, path: string): string | undefined => {
  switch (block.type) {
    case "text":
      return checkText(block, path)
    case "image":
    case "document":
      return role === "user" ? checkSource(block.source, block.type, `${path}.source`) : `${path}: user-only block`
    case "tool_result":
      return role === "user" && typeof block.tool_use_id === "string"
        ? undefined
        : `${path}.tool_use_id: Field required`
    case "tool_use":
      return role === "assistant" && typeof block.id === "string" && typeof block.name === "string" &&
          isRecord(block.input)
        ? undefined
        : `${path}: tool_use blocks need id, name and an object input, in assistant messages`
    case "thinking":
      return typeof block.thinking === "string" && typeof block.signature === "string"
        ? undefined
        : `${path}.signature: Field required`
    case "redacted_thinking":
      return typeof block.data === "string" ? undefined : `${path}.data: Field required`
    default:
      return `${path}.type: Input tag '${
        String(block.type)
      }' found using 'type' does not match any of the expected tags`
  }
}

const checkSource = (source: unknown, kind: unknown, path: string): string | undefined => {
  const type = stringField(source, "type")
  if (type === "url") {
    return stringField(source, "url")?.startsWith("http") === true
      ? undefined
      : `${path}.url: invalid`
  }
  if (type !== "base64" || typeof field(source, "data") !== "string") return `${path}: Input should be a valid source`
  const mediaType = stringField(source, "media_type") ?? ""
  const allowed = kind === "image" ? mediaTypes.has(mediaType) : mediaType === "application/pdf"
  return allowed ? undefined : `${path}.media_type: Input should be a supported media type`
}

const inUnit = (value: unknown) => value === undefined || (typeof value === "number" && value >= 0 && value <= 1)

const checkSampling = (body: JsonRecord): string | undefined => {
  if (!inUnit(body.temperature)) return "temperature: Input should be less than or equal to 1"
  if (!inUnit(body.top_p)) return "top_p: Input should be less than or equal to 1"
  if (body.stop_sequences !== undefined && !arrayField(body, "stop_sequences").every((s) => typeof s === "string")) {
    return "stop_sequences: Input should be a valid list of strings"
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") return "stream: Input should be a valid boolean"
  if (body.metadata !== undefined && !isRecord(body.metadata)) return "metadata: Input should be an object"
  return undefined
}

const toolName = /^[a-zA-Z0-9_-]{1,128}$/

const checkTools = (body: JsonRecord): string | undefined => {
  const tools = body.tools === undefined ? [] : arrayField(body, "tools")
  for (const [index, tool] of tools.entries()) {
    if (!toolName.test(stringField(tool, "name") ?? "")) return `tools.${index}.name: String should match pattern`
    if (stringField(field(tool, "input_schema"), "type") !== "object") {
      return `tools.${index}.input_schema.type: Input should be 'object'`
    }
  }
  const choice = body.tool_choice
  if (choice === undefined) return undefined
  const type = stringField(choice, "type")
  if (type !== "auto" && type !== "any" && type !== "tool" && type !== "none") {
    return "tool_choice: Input should be an object with type 'auto', 'any', 'tool' or 'none'"
  }
  if (type === "tool" && stringField(choice, "name") === undefined) return "tool_choice.name: Field required"
  return tools.length === 0 && type !== "none" ? "tool_choice: may only be specified while providing tools" : undefined
}

const checkThinking = (body: JsonRecord): string | undefined => {
  if (body.thinking === undefined) return undefined
  const type = stringField(body.thinking, "type")
  if (type === "disabled") return undefined
  const budget = field(body.thinking, "budget_tokens")
  if (type !== "enabled" || typeof budget !== "number") return "thinking.budget_tokens: Field required"
  if (budget < 1024) return "thinking.budget_tokens: Input should be greater than or equal to 1024"
  return typeof body.max_tokens === "number" && budget >= body.max_tokens
    ? "`max_tokens` must be greater than `thinking.budget_tokens`"
    : undefined
}
