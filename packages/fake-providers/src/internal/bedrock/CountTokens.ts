/**
 * The fake's CountTokens (`POST /model/{modelId}/count-tokens`, bedrock-runtime API reference) for
 * Claude: `{input: {invokeModel: {body}}}` with an InvokeModel body in base64, checked as an
 * InvokeModel body is, answered `{inputTokens}` with the fake Anthropic API's count of the same
 * messages. Bedrock counts for a foundation model's id only: a cross-region inference profile's
 * (`us.anthropic…`) is refused.
 */
import { inputTokens } from "../anthropic/TokenCountRequest.ts"
import { isRecord } from "../JsonFields.ts"
import { checkInvokeBody, isClaudeModel } from "./ClaudeInvoke.ts"

export type Counted = { readonly problem: string } | { readonly inputTokens: number }

export const count = (body: unknown, modelId: string): Counted => {
  if (!isClaudeModel(modelId) || !modelId.startsWith("anthropic.")) {
    return { problem: "The provided model doesn't support counting tokens." }
  }
  const invoke = isRecord(body) && isRecord(body.input) && isRecord(body.input.invokeModel)
    ? body.input.invokeModel.body
    : undefined
  if (typeof invoke !== "string") return { problem: "input.invokeModel.body: must be base64 of the InvokeModel body" }
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(invoke, "base64").toString("utf8"))
  } catch {
    return { problem: "input.invokeModel.body: Unable to parse request body" }
  }
  const problem = checkInvokeBody(decoded, modelId)
  if (problem !== undefined) return { problem }
  return { inputTokens: isRecord(decoded) ? inputTokens(decoded) : 0 }
}
