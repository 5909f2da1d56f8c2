/**
 * Members the gateway's internal chat format carries for other client formats (protocol's
 * ChatReasoning, and Anthropic's parameters a Messages client sends) that an OpenAI-format
 * provider does not take: the thinking blocks of earlier answers (`content_blocks` on assistant
 * messages) never go to one, and OpenAI's own API, which refuses any member it does not know,
 * gets no `thinking`, `top_k` nor `cache_control` (on content parts and tools) either. A body
 * without them, the common case, is sent as it is.
 */
import type { GatewayRequest } from "@switchyard/core"

type Body = GatewayRequest.JsonObject

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const hasCacheControl = (value: unknown): boolean => isRecord(value) && value.cache_control !== undefined

const hasCachedPart = (message: unknown): boolean =>
  isRecord(message) && Array.isArray(message.content) && message.content.some(hasCacheControl)

const without = (value: unknown, member: string): unknown => {
  if (!isRecord(value) || !(member in value)) return value
  const copy: Record<string, unknown> = { ...value }
  delete copy[member]
  return copy
}

/**
 * @param strict the provider refuses unknown members (OpenAI, Azure OpenAI)
 */
export const forOpenAIFormat = (body: Body, strict: boolean): Body => {
  const messages = Array.isArray(body.messages) ? body.messages : []
  const tools = Array.isArray(body.tools) ? body.tools : []
  const dropTop = strict && (body.thinking !== undefined || body.top_k !== undefined)
  const rewriteMessages = messages.some((message) =>
    (isRecord(message) && "content_blocks" in message) || (strict && hasCachedPart(message))
  )
  const rewriteTools = strict && tools.some(hasCacheControl)
  if (!dropTop && !rewriteMessages && !rewriteTools) return body
  const sent: Record<string, unknown> = { ...body }
  if (dropTop) {
    delete sent.thinking
    delete sent.top_k
  }
  if (rewriteMessages) sent.messages = messages.map((message) => forProvider(message, strict))
  if (rewriteTools) sent.tools = tools.map((tool) => without(tool, "cache_control"))
  return sent
}

const forProvider = (message: unknown, strict: boolean): unknown => {
  const kept = without(message, "content_blocks")
  if (!strict || !isRecord(kept) || !Array.isArray(kept.content)) return kept
  return { ...kept, content: kept.content.map((part) => without(part, "cache_control")) }
}
