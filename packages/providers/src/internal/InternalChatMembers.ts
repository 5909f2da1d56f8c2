/**
 * Members the gateway's internal chat format carries for other client formats (protocol's
 * ChatReasoning, and Anthropic's parameters a Messages client sends) that an OpenAI-format
 * provider does not take: the thinking blocks of earlier answers (`content_blocks` on assistant
 * messages) never go to one, and OpenAI's own API, which refuses any member it does not know,
 * gets no `thinking` nor `top_k` either. A body without them, the common case, is sent as it is.
 */
import type { GatewayRequest } from "@switchyard/core"

type Body = GatewayRequest.JsonObject

/**
 * @param strict the provider refuses unknown members (OpenAI, Azure OpenAI)
 */
export const forOpenAIFormat = (body: Body, strict: boolean): Body => {
  const dropTop = strict && (body.thinking !== undefined || body.top_k !== undefined)
  const messages = body.messages
  const dropBlocks = Array.isArray(messages) && messages.some(hasContentBlocks)
  if (!dropTop && !dropBlocks) return body
  const sent: Record<string, unknown> = { ...body }
  if (dropTop) {
    delete sent.thinking
    delete sent.top_k
  }
  if (dropBlocks && Array.isArray(messages)) sent.messages = messages.map(withoutContentBlocks)
  return sent
}

const hasContentBlocks = (message: unknown): boolean =>
  typeof message === "object" && message !== null && "content_blocks" in message

const withoutContentBlocks = (message: unknown): unknown => {
  if (typeof message !== "object" || message === null || !("content_blocks" in message)) return message
  const { content_blocks: _, ...rest } = message
  return rest
}
