/**
 * An OpenAI-format chat request as a Gemini `GenerateContentRequest` (ai.google.dev/api/generate-content),
 * the body both the Gemini API and Vertex AI's `publishers/google` models take.
 * Documented rules relied on:
 * - `tools: [{functionDeclarations: [{name, description, parameters}]}]`, where `parameters` is
 *   the OpenAPI 3.0 subset of Schema (no `$schema`, no `additionalProperties`);
 * - `toolConfig.functionCallingConfig.mode` AUTO, NONE or ANY, with `allowedFunctionNames`;
 * - `generationConfig`: temperature, topP, maxOutputTokens, stopSequences, candidateCount (1 to 8),
 *   presencePenalty, frequencyPenalty, seed, responseMimeType + responseSchema, thinkingConfig.
 */
import { GatewayError } from "@switchyard/core"
import type { ChatRequestView } from "@switchyard/protocol"
import { Effect } from "effect"
import { type GeminiContent, type GeminiPart, toConversation } from "./GeminiContents.ts"

export interface GeminiRequest {
  readonly contents: ReadonlyArray<GeminiContent>
  readonly systemInstruction?: { readonly parts: ReadonlyArray<GeminiPart> }
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations: ReadonlyArray<FunctionDeclaration> }>
  readonly toolConfig?: {
    readonly functionCallingConfig: { readonly mode: Mode; readonly allowedFunctionNames?: ReadonlyArray<string> }
  }
  readonly generationConfig?: { readonly [key: string]: unknown }
}

type Mode = "AUTO" | "NONE" | "ANY"

interface FunctionDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters?: unknown
}

/** Gemini answers at most this many candidates per request. */
export const MAX_CANDIDATES = 8

const invalid = (message: string, param: string) => new GatewayError.InvalidRequest({ message, param })

export const toGeminiRequest = (
  body: ChatRequestView.ChatRequestView,
  provider: string
): Effect.Effect<GeminiRequest, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    yield* refuseUnsupported(body, provider)
    const conversation = yield* toConversation(body.messages)
    const declarations = [...(body.tools ?? []).map((tool) => tool.function), ...(body.functions ?? [])]
    const toolConfig = toolConfigOf(body)
    const generationConfig = generationConfigOf(body)
    return {
      contents: conversation.contents,
      ...(conversation.systemInstruction === undefined ? {} : { systemInstruction: conversation.systemInstruction }),
      ...(declarations.length === 0 ? {} : { tools: [{ functionDeclarations: declarations.map(declaration) }] }),
      ...(toolConfig === undefined ? {} : { toolConfig: { functionCallingConfig: toolConfig } }),
      ...(Object.keys(generationConfig).length === 0 ? {} : { generationConfig })
    }
  })

/** Parameters Gemini has no way to honour: refused rather than dropped, so no answer is silently wrong. */
const refuseUnsupported = (body: ChatRequestView.ChatRequestView, provider: string) => {
  if (body.n !== undefined && body.n !== null && body.n > MAX_CANDIDATES) {
    return Effect.fail(invalid(`n: ${provider} answers at most ${MAX_CANDIDATES} choices (got ${body.n})`, "n"))
  }
  if (body.logprobs === true) {
    return Effect.fail(invalid(`logprobs: not supported for ${provider}`, "logprobs"))
  }
  if (body.logit_bias !== undefined && body.logit_bias !== null && Object.keys(body.logit_bias).length > 0) {
    return Effect.fail(invalid(`logit_bias: not supported by ${provider}`, "logit_bias"))
  }
  const format = body.response_format?.type
  if (format !== undefined && !RESPONSE_FORMATS.has(format)) {
    return Effect.fail(invalid(`response_format: "${format}" is not supported by ${provider}`, "response_format"))
  }
  return Effect.void
}

/** The formats generationConfig can express; any other type is refused. */
const RESPONSE_FORMATS: ReadonlySet<string> = new Set(["text", "json_object", "json_schema"])

const declaration = (fn: ChatRequestView.FunctionDefinition): FunctionDeclaration => ({
  name: fn.name,
  ...(fn.description === undefined ? {} : { description: fn.description }),
  ...(fn.parameters === undefined ? {} : { parameters: toGeminiSchema(fn.parameters) })
})

/** JSON Schema keywords outside Gemini's OpenAPI subset; sending them is a 400 "Unknown name". */
const UNSUPPORTED_KEYWORDS = new Set(["$schema", "$id", "$comment", "additionalProperties", "strict"])

/** A JSON Schema with the keywords Gemini rejects removed, at every depth. */
export const toGeminiSchema = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(toGeminiSchema)
  if (typeof schema !== "object" || schema === null) return schema
  const kept: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    // `properties` maps names to schemas: its keys are property names, never keywords
    if (key === "properties" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      kept[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, toGeminiSchema(inner)]))
    } else if (!UNSUPPORTED_KEYWORDS.has(key)) kept[key] = toGeminiSchema(value)
  }
  return kept
}

const toolConfigOf = (
  body: ChatRequestView.ChatRequestView
): { readonly mode: Mode; readonly allowedFunctionNames?: ReadonlyArray<string> } | undefined => {
  const choice = body.tool_choice ?? body.function_call ?? undefined
  if (choice === undefined) return undefined
  if (choice === "none") return { mode: "NONE" }
  if (choice === "auto") return { mode: "AUTO" }
  if (choice === "required") return { mode: "ANY" }
  return { mode: "ANY", allowedFunctionNames: ["function" in choice ? choice.function.name : choice.name] }
}

/** OpenAI parameter → generationConfig field: the mapping as data. */
const numericFields = [
  ["temperature", "temperature"],
  ["top_p", "topP"],
  ["presence_penalty", "presencePenalty"],
  ["frequency_penalty", "frequencyPenalty"],
  ["seed", "seed"],
  ["n", "candidateCount"]
] as const

const generationConfigOf = (body: ChatRequestView.ChatRequestView): Record<string, unknown> => {
  const config: Record<string, unknown> = {}
  for (const [from, to] of numericFields) {
    const value = body[from]
    if (value !== undefined && value !== null) config[to] = value
  }
  const maxTokens = body.max_completion_tokens ?? body.max_tokens
  if (maxTokens !== undefined && maxTokens !== null) config.maxOutputTokens = maxTokens
  if (typeof body.stop === "string") config.stopSequences = [body.stop]
  else if (body.stop !== undefined && body.stop !== null && body.stop.length > 0) config.stopSequences = body.stop
  const format = body.response_format ?? undefined
  if (format !== undefined && format.type !== "text") {
    config.responseMimeType = "application/json"
    const schema = format.json_schema?.schema
    if (format.type === "json_schema" && schema !== undefined) config.responseSchema = toGeminiSchema(schema)
  }
  const thinking = body.thinking ?? undefined
  if (thinking !== undefined && thinking.type === "enabled") {
    const budget = thinking.budget_tokens
    config.thinkingConfig = budget === undefined
      ? { includeThoughts: true }
      : { thinkingBudget: budget, includeThoughts: true }
  }
  return config
}
