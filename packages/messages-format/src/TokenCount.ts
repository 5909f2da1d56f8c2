/**
 * The input tokens of a Messages request counted with OpenAI's tokenizers (`gpt-tokenizer`, a
 * maintained pure-JavaScript port of tiktoken's encodings; chosen over `js-tiktoken`, which took
 * twice as long to load its table and held about three times the memory), for `POST /v1/messages/count_tokens` to a target that
 * has no counting endpoint of its own. The encoding follows the model: `o200k_base` for the
 * GPT-4o, GPT-4.1, GPT-4.5, GPT-5 and o-series families, `cl100k_base` for GPT-4 and GPT-3.5; any
 * other model (Gemini, Llama, Mistral, Claude outside Anthropic's API…) is counted with
 * `o200k_base`, the closest public vocabulary to today's large ones: a count, not that model's
 * own. Each message adds 3 tokens and the reply's priming 3, as OpenAI's cookbook counts chat
 * input; images and PDFs count as TokenEstimate's average, which no text tokenizer measures.
 * An encoding's table is loaded on first use, not at start-up (measured: about 1.7 s and 70 MiB
 * for `o200k_base` on a busy 2-core machine).
 */
import { Effect } from "effect"
import type * as O200k from "gpt-tokenizer/encoding/o200k_base"
import { type Counted, textOf } from "./internal/RequestText.ts"
import { IMAGE_TOKENS } from "./TokenEstimate.ts"

export type Encoding = "o200k_base" | "cl100k_base"

const TOKENS_PER_MESSAGE = 3
const REPLY_PRIMING = 3

/** The encoding a model's tokens are counted with. */
export const encodingFor = (model: string): Encoding => {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase()
  if (/^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o\d)/.test(name)) return "o200k_base"
  if (/^(gpt-4|gpt-3\.5|gpt-35)/.test(name)) return "cl100k_base"
  return "o200k_base"
}

type Tokenizer = Pick<typeof O200k, "countTokens">

const tokenizers = new Map<Encoding, Promise<Tokenizer>>()

const load = (encoding: Encoding): Promise<Tokenizer> =>
  encoding === "o200k_base" ? import("gpt-tokenizer/encoding/o200k_base") : import("gpt-tokenizer/encoding/cl100k_base")

const tokenizerFor = (encoding: Encoding): Promise<Tokenizer> => {
  const known = tokenizers.get(encoding)
  if (known !== undefined) return known
  const loading = load(encoding)
  tokenizers.set(encoding, loading)
  return loading
}

// special-token text (`<|endoftext|>`) a client sends is counted as text, never refused
const asText = { disallowedSpecial: new Set<string>() }

/**
 * @example
 * import { TokenCount } from "@switchyard/messages-format"
 * TokenCount.inputTokens({ messages: [{ role: "user", content: "Hello, world" }] }, "gpt-4o") // 9
 */
export const inputTokens = (request: Counted, model: string): Effect.Effect<number> =>
  Effect.map(Effect.promise(() => tokenizerFor(encodingFor(model))), (tokenizer) => {
    const { images, texts } = textOf(request)
    let tokens = REPLY_PRIMING + TOKENS_PER_MESSAGE * (request.messages.length + (request.system === undefined ? 0 : 1))
    for (const text of texts) tokens += tokenizer.countTokens(text, asText)
    return tokens + images * IMAGE_TOKENS
  })
