/**
 * An estimate of a Messages request's input tokens, for `POST /v1/messages/count_tokens` and for
 * the usage of `message_start`, which a translated stream must send before the provider has said
 * anything. No tokenizer is exact across providers (each model family has its own), so this is
 * the common rule of thumb, about four characters of English text per token, counted over the
 * text the model reads (system, messages, tool definitions); an image counts as Anthropic's
 * documented average for a mid-sized one.
 */
import type * as MessagesRequest from "./MessagesRequest.ts"

const CHARS_PER_TOKEN = 4
/** docs.anthropic.com, "Vision": about (width * height) / 750 tokens; 1092 x 1092 is about 1,600. */
const IMAGE_TOKENS = 1_600

/**
 * @example
 * import { TokenEstimate } from "@switchyard/messages-format"
 * TokenEstimate.inputTokens({ messages: [{ role: "user", content: "Hello, world" }] }) // 3
 */
export const inputTokens = (
  request: Pick<MessagesRequest.MessagesRequest, "system" | "messages" | "tools">
): number => {
  let chars = 0
  let images = 0
  const system = request.system
  if (typeof system === "string") chars += system.length
  else if (system !== undefined) { for (const block of system) chars += block.text.length }
  for (const message of request.messages) {
    if (typeof message.content === "string") {
      chars += message.content.length
      continue
    }
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          chars += block.text.length
          break
        case "image":
          images += 1
          break
        case "document":
          chars += block.source.type === "text" ? block.source.data.length : 0
          images += block.source.type === "text" ? 0 : 1
          break
        case "tool_use":
          chars += block.name.length + JSON.stringify(block.input).length
          break
        case "tool_result":
          if (typeof block.content === "string") chars += block.content.length
          else {
            for (const part of block.content ?? []) {
              if (part.type === "text") chars += part.text.length
              else images += 1
            }
          }
          break
        case "thinking":
          chars += block.thinking.length
          break
        case "redacted_thinking":
          break
      }
    }
  }
  for (const tool of request.tools ?? []) {
    chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.input_schema).length
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN)) + images * IMAGE_TOKENS
}
