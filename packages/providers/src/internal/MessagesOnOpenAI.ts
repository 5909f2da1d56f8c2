/**
 * A Messages client's request on an OpenAI-format target fitted to the model, from the catalog:
 * Anthropic's clients ask for their own models' budgets (Claude Code sends `max_tokens: 32000`),
 * which OpenAI refuses with 400 past the model's output limit (gpt-4o's is 16,384), so
 * `max_tokens` is lowered to the limit. A reasoning model (o-series, GPT-5) refuses `max_tokens`
 * and knows no `thinking`: the limit goes as `max_completion_tokens`, and Anthropic's thinking
 * budget becomes `reasoning_effort` by its size (Claude Code's "think" 4,000, "think hard" 10,000,
 * "ultrathink" 31,999): under 8,192 `low`, under 24,576 `medium`, else `high`; thinking disabled
 * or absent sets nothing, so the model's default holds. Chat clients' bodies are sent as they came:
 * their limits are theirs to choose. A model the catalog does not know is left as it is.
 */
import { GatewayRequest } from "@switchyard/core"
import * as ModelCatalog from "../catalog/ModelCatalog.ts"

const MESSAGES = "messages"

/** The effort a thinking budget of this many tokens maps to. */
export const effortOf = (budgetTokens: number): "low" | "medium" | "high" =>
  budgetTokens < 8_192 ? "low" : budgetTokens < 24_576 ? "medium" : "high"

export const fitToModel = (request: GatewayRequest.GatewayRequest, provider: string): GatewayRequest.JsonObject => {
  const body = request.body
  if (request.native?.format !== MESSAGES || typeof body.model !== "string") return body
  const entry = ModelCatalog.find(provider, body.model)
  if (entry === undefined) return body
  const fitted: Record<string, unknown> = { ...body }
  const asked = body.max_tokens
  if (typeof asked === "number" && entry.maxOutputTokens !== undefined && asked > entry.maxOutputTokens) {
    fitted.max_tokens = entry.maxOutputTokens
  }
  if (entry.reasoning === true) {
    if (fitted.max_tokens !== undefined) {
      fitted.max_completion_tokens = fitted.max_tokens
      delete fitted.max_tokens
    }
    const thinking = body.thinking
    if (
      fitted.reasoning_effort === undefined && GatewayRequest.isJsonObject(thinking) && thinking.type === "enabled" &&
      typeof thinking.budget_tokens === "number"
    ) {
      fitted.reasoning_effort = effortOf(thinking.budget_tokens)
    }
  }
  return fitted
}
