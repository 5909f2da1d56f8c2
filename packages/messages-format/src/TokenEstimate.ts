/**
 * An estimate of a Messages request's input tokens, for the usage of `message_start`, which a
 * translated stream must send before the provider has said anything: a tokenizer on every
 * request would cost the hot path more than the estimate is worth there (`count_tokens` uses
 * TokenCount). It is the common rule of thumb, about four characters of English text per token, counted over the
 * text the model reads (system, messages, tool definitions); an image counts as Anthropic's
 * documented average for a mid-sized one.
 */
import { type Counted, textOf } from "./internal/RequestText.ts"

const CHARS_PER_TOKEN = 4
/** docs.anthropic.com, "Vision": about (width * height) / 750 tokens; 1092 x 1092 is about 1,600. */
export const IMAGE_TOKENS = 1_600

/**
 * @example
 * import { TokenEstimate } from "@switchyard/messages-format"
 * TokenEstimate.inputTokens({ messages: [{ role: "user", content: "Hello, world" }] }) // 3
 */
export const inputTokens = (request: Counted): number => {
  const { images, texts } = textOf(request)
  let chars = 0
  for (const text of texts) chars += text.length
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN)) + images * IMAGE_TOKENS
}
