/**
 * The Converse request body as the API reference defines it; a body that breaks a rule gets the
 * ValidationException message Bedrock would answer with (400).
 */
const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const TOP_LEVEL = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "guardrailConfig",
  "additionalModelRequestFields",
  "additionalModelResponseFieldPaths",
  "promptVariables",
  "requestMetadata",
  "performanceConfig"
])
const INFERENCE = new Set(["maxTokens", "temperature", "topP", "stopSequences"])
const BLOCKS = new Set([
  "text",
  "image",
  "document",
  "video",
  "toolUse",
  "toolResult",
  "guardContent",
  "reasoningContent",
  "cachePoint"
])
const IMAGE_FORMATS = new Set(["png", "jpeg", "gif", "webp"])

/** undefined when the body is a valid Converse request; otherwise the validation message. */
export const check = (body: unknown): string | undefined => {
  if (!isRecord(body)) return "The request body must be a JSON object."
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return `Unknown field: ${key}.`
  const { messages, system, inferenceConfig, toolConfig } = body
  if (!Array.isArray(messages) || messages.length === 0) return "messages: must be a non-empty array."
  if (
    system !== undefined && (!Array.isArray(system) || !system.every((b) => isRecord(b) && typeof b.text === "string"))
  ) {
    return "system: must be an array of {text} blocks."
  }
  if (inferenceConfig !== undefined) {
    if (!isRecord(inferenceConfig)) return "inferenceConfig: must be an object."
    for (const key of Object.keys(inferenceConfig)) {
      if (!INFERENCE.has(key)) return `inferenceConfig: unknown field ${key}.`
    }
  }
  if (toolConfig !== undefined) {
    const problem = checkToolConfig(toolConfig)
    if (problem !== undefined) return problem
  }
  let previous: unknown = undefined
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || (message.role !== "user" && message.role !== "assistant")) {
      return `messages.${index}.role: must be user or assistant.`
    }
    if (index === 0 && message.role !== "user") return "A conversation must start with a user message."
    if (message.role === previous) {
      return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."
    }
    previous = message.role
    if (!Array.isArray(message.content) || message.content.length === 0) {
      return `messages.${index}.content: must not be empty.`
    }
    for (const block of message.content) {
      const problem = checkBlock(block, index, toolConfig !== undefined)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

const checkToolConfig = (toolConfig: unknown): string | undefined => {
  if (!isRecord(toolConfig) || !Array.isArray(toolConfig.tools) || toolConfig.tools.length === 0) {
    return "toolConfig.tools: must be a non-empty array."
  }
  for (const tool of toolConfig.tools) {
    const spec = isRecord(tool) ? tool.toolSpec : undefined
    if (
      !isRecord(spec) || typeof spec.name !== "string" || !isRecord(spec.inputSchema) ||
      !isRecord(spec.inputSchema.json)
    ) {
      return "toolConfig.tools: each tool needs toolSpec {name, inputSchema: {json}}."
    }
  }
  const choice = toolConfig.toolChoice
  if (choice === undefined) return undefined
  const keys = isRecord(choice) ? Object.keys(choice) : []
  const valid = keys.length === 1 &&
    (keys[0] === "auto" || keys[0] === "any" ||
      (keys[0] === "tool" && isRecord(choice) && isRecord(choice.tool) && typeof choice.tool.name === "string"))
  return valid ? undefined : "toolConfig.toolChoice: must be one of {auto:{}}, {any:{}}, {tool:{name}}."
}

const checkBlock = (block: unknown, index: number, hasTools: boolean): string | undefined => {
  const keys = isRecord(block) ? Object.keys(block) : []
  const kind = keys[0]
  if (!isRecord(block) || keys.length !== 1 || kind === undefined || !BLOCKS.has(kind)) {
    return `messages.${index}.content: each block must have exactly one member.`
  }
  if (kind === "text" && (typeof block.text !== "string" || block.text.trim() === "")) {
    return "The text field in the ContentBlock object is blank. Add text to the text field, and try again."
  }
  if (kind === "image") {
    const image = block.image
    const source = isRecord(image) ? image.source : undefined
    if (
      !isRecord(image) || !IMAGE_FORMATS.has(String(image.format)) || !isRecord(source) ||
      typeof source.bytes !== "string"
    ) {
      return `messages.${index}.content.image: needs format and source.bytes.`
    }
  }
  if ((kind === "toolUse" || kind === "toolResult") && !hasTools) {
    return "The toolConfig field must be defined when using toolUse and toolResult content blocks."
  }
  if (kind === "toolUse") {
    const use = block.toolUse
    if (!isRecord(use) || typeof use.toolUseId !== "string" || typeof use.name !== "string" || !isRecord(use.input)) {
      return `messages.${index}.content.toolUse: needs toolUseId, name and an input object.`
    }
  }
  if (kind === "toolResult") {
    const result = block.toolResult
    if (!isRecord(result) || typeof result.toolUseId !== "string" || !Array.isArray(result.content)) {
      return `messages.${index}.content.toolResult: needs toolUseId and content.`
    }
  }
  return undefined
}
