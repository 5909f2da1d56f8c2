/**
 * The fake's `POST /v1/messages/count_tokens` (docs.anthropic.com, "Count Message tokens"): the
 * body is a Messages body without the generation members (`model`, `messages`, `system`, `tools`,
 * `tool_choice`, `thinking`; `max_tokens` or `stream` are refused as extra inputs), checked as a
 * Messages body is, and answered `{"input_tokens": n}`. The fake's n is not a tokenizer's: each
 * run of non-space characters in the texts and tool definitions counts one, and each message three,
 * so a test can tell the provider's count from the gateway's own.
 */
import { isRecord } from "../JsonFields.ts"
import { checkMessagesRequest } from "./MessagesRequestCheck.ts"

const topLevel = new Set(["model", "messages", "system", "tools", "tool_choice", "thinking"])

/** The first problem with a count body, worded as Anthropic words it, or undefined. */
export const checkCountRequest = (body: unknown): string | undefined => {
  if (!isRecord(body)) return "body: Input should be an object"
  for (const key of Object.keys(body)) if (!topLevel.has(key)) return `${key}: Extra inputs are not permitted`
  // the rest is a Messages body's: checked as one, with a max_tokens above any thinking budget
  return checkMessagesRequest({ ...body, max_tokens: Number.MAX_SAFE_INTEGER })
}

const PER_MESSAGE = 3

/** The fake's count of a checked body. */
export const inputTokens = (body: Readonly<Record<string, unknown>>): number => {
  const messages = Array.isArray(body.messages) ? body.messages.length : 0
  return words(body.system) + words(body.messages) + words(body.tools) + PER_MESSAGE * messages
}

/** Runs of non-space characters in every string of a JSON value, but `type` and `role` members. */
const words = (value: unknown): number => {
  if (typeof value === "string") return value.split(/\s+/).filter((word) => word !== "").length
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + words(item), 0)
  if (isRecord(value)) {
    return Object.entries(value).reduce(
      (sum, [key, item]) => sum + (key === "type" || key === "role" ? 0 : words(item)),
      0
    )
  }
  return 0
}
