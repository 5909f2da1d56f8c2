/**
 * Checks a `GenerateContentRequest` as the Gemini API documents it (ai.google.dev/api/generate-content,
 * ai.google.dev/api/caching#Content, ai.google.dev/api/caching#Tool): the first rule broken, worded
 * like the API's own 400 messages, or undefined when the body is well formed.
 */
import { isRecord, type JsonRecord } from "../JsonFields.ts"

const TOP_LEVEL = new Set([
  "contents",
  "systemInstruction",
  "tools",
  "toolConfig",
  "generationConfig",
  "safetySettings"
])
const GENERATION = new Set([
  "temperature",
  "topP",
  "topK",
  "candidateCount",
  "maxOutputTokens",
  "stopSequences",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
  "responseMimeType",
  "responseSchema",
  "thinkingConfig",
  "responseLogprobs",
  "logprobs"
])
const PART_FIELDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse"]
/** Keys of the OpenAPI subset Schema that Gemini accepts for parameters and responseSchema. */
const SCHEMA_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum"
])
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/

const unknownName = (name: string, at: string) =>
  `Invalid JSON payload received. Unknown name "${name}" at '${at}': Cannot find field.`

export const checkGenerateContent = (body: unknown): string | undefined => {
  if (!isRecord(body)) return "Invalid JSON payload received."
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return unknownName(key, "")
  const contents = body.contents
  if (!Array.isArray(contents) || contents.length === 0) {
    return "* GenerateContentRequest.contents: contents is not specified"
  }
  for (const [index, content] of contents.entries()) {
    const problem = checkContent(content, `contents[${index}]`)
    if (problem !== undefined) return problem
  }
  if (body.systemInstruction !== undefined) {
    const problem = checkParts(field(body.systemInstruction, "parts"), "system_instruction", "user")
    if (problem !== undefined) return problem
  }
  return checkTools(body.tools) ?? checkToolConfig(body.toolConfig) ?? checkGeneration(body.generationConfig)
}

const field = (value: unknown, key: string): unknown => (isRecord(value) ? value[key] : undefined)

const checkContent = (content: unknown, at: string): string | undefined => {
  const role = field(content, "role")
  if (role !== "user" && role !== "model") return `* ${at}.role: Please use a valid role: user, model.`
  return checkParts(field(content, "parts"), at, role)
}

const checkParts = (parts: unknown, at: string, role: "user" | "model"): string | undefined => {
  if (!Array.isArray(parts) || parts.length === 0) return `* ${at}.parts: contents.parts must not be empty.`
  for (const [index, part] of parts.entries()) {
    const where = `${at}.parts[${index}]`
    if (!isRecord(part)) return `* ${where}: must be an object`
    const present = PART_FIELDS.filter((name) => part[name] !== undefined)
    for (const key of Object.keys(part)) {
      if (!PART_FIELDS.includes(key) && key !== "thought") return unknownName(key, where)
    }
    if (present.length !== 1) return `* ${where}: a part holds exactly one kind of data (got ${present.join(", ")})`
    const problem = checkPart(part, where, role)
    if (problem !== undefined) return problem
  }
  return undefined
}

const checkPart = (part: JsonRecord, at: string, role: "user" | "model"): string | undefined => {
  if (part.text !== undefined) return typeof part.text === "string" ? undefined : `* ${at}.text: must be a string`
  if (part.inlineData !== undefined) {
    const data = field(part.inlineData, "data")
    return typeof field(part.inlineData, "mimeType") !== "string" || typeof data !== "string" ||
        !/^[A-Za-z0-9+/=_-]*$/.test(data)
      ? `* ${at}.inline_data: needs mimeType and base64 data`
      : undefined
  }
  if (part.fileData !== undefined) {
    return typeof field(part.fileData, "mimeType") !== "string" || typeof field(part.fileData, "fileUri") !== "string"
      ? `* ${at}.file_data: needs mimeType and fileUri`
      : undefined
  }
  if (part.functionCall !== undefined) {
    if (role !== "model") return `* ${at}.function_call: only a model turn may hold a function call`
    return typeof field(part.functionCall, "name") !== "string" || !isRecord(field(part.functionCall, "args"))
      ? `* ${at}.function_call: needs name and args (an object)`
      : undefined
  }
  if (role !== "user") return `* ${at}.function_response: only a user turn may hold a function response`
  return typeof field(part.functionResponse, "name") !== "string" || !isRecord(field(part.functionResponse, "response"))
    ? `* ${at}.function_response: needs name and response (an object)`
    : undefined
}

const checkTools = (tools: unknown): string | undefined => {
  if (tools === undefined) return undefined
  if (!Array.isArray(tools)) return "* tools: must be a list"
  for (const [index, tool] of tools.entries()) {
    const declarations = field(tool, "functionDeclarations")
    if (!Array.isArray(declarations)) return `* tools[${index}]: needs functionDeclarations`
    for (const [position, declaration] of declarations.entries()) {
      const at = `tools[${index}].function_declarations[${position}]`
      const name = field(declaration, "name")
      if (typeof name !== "string" || !FUNCTION_NAME.test(name)) return `* ${at}.name: Invalid function name.`
      const parameters = field(declaration, "parameters")
      const problem = parameters === undefined ? undefined : checkSchema(parameters, `${at}.parameters`)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

export const checkSchema = (schema: unknown, at: string): string | undefined => {
  if (!isRecord(schema)) return `* ${at}: must be an object`
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(key)) return unknownName(key, at)
    const nested = key === "items"
      ? [value]
      : key === "anyOf" && Array.isArray(value)
      ? value
      : key === "properties" && isRecord(value)
      ? Object.values(value)
      : []
    for (const inner of nested) {
      const problem = checkSchema(inner, `${at}.${key}`)
      if (problem !== undefined) return problem
    }
  }
  return undefined
}

const checkToolConfig = (config: unknown): string | undefined => {
  if (config === undefined) return undefined
  const calling = field(config, "functionCallingConfig")
  const mode = field(calling, "mode")
  if (mode !== "AUTO" && mode !== "ANY" && mode !== "NONE") return "* tool_config.function_calling_config.mode: invalid"
  const allowed = field(calling, "allowedFunctionNames")
  return allowed !== undefined && mode !== "ANY"
    ? "* tool_config.function_calling_config.allowed_function_names: only allowed with mode ANY"
    : undefined
}

const checkGeneration = (config: unknown): string | undefined => {
  if (config === undefined) return undefined
  if (!isRecord(config)) return "* generation_config: must be an object"
  for (const key of Object.keys(config)) if (!GENERATION.has(key)) return unknownName(key, "generation_config")
  const count = config.candidateCount
  if (count !== undefined && (typeof count !== "number" || count < 1 || count > 8)) {
    return "* GenerateContentRequest.generation_config.candidate_count: must be between 1 and 8"
  }
  const stops = config.stopSequences
  if (stops !== undefined && (!Array.isArray(stops) || stops.length > 5)) {
    return "* GenerateContentRequest.generation_config.stop_sequences: at most 5 stop sequences"
  }
  return config.responseSchema === undefined
    ? undefined
    : checkSchema(config.responseSchema, "generation_config.response_schema")
}
