import { countWords, field, stringField } from "./JsonFields.ts"

const defaultDimensions = 8

/** A `list` of `embedding` objects, one per input, with vectors derived from each input's text. */
export const embeddingList = (body: unknown) => {
  const inputs = embeddingInputs(field(body, "input"))
  const dimensions = field(body, "dimensions")
  const size = typeof dimensions === "number" && Number.isInteger(dimensions) && dimensions > 0
    ? Math.min(dimensions, 4096)
    : defaultDimensions
  const promptTokens = inputs.reduce((total, input) => total + countWords(input), 0)
  return {
    object: "list",
    data: inputs.map((input, index) => ({ object: "embedding", index, embedding: vectorOf(input, size) })),
    model: stringField(body, "model") ?? "fake-embedding-model",
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens }
  }
}

/** OpenAI accepts a string, a list of strings, a token list, or a list of token lists. */
const embeddingInputs = (input: unknown): ReadonlyArray<string> => {
  if (typeof input === "string") return [input]
  if (!Array.isArray(input) || input.length === 0) return []
  if (input.every((item) => typeof item === "number")) return [input.join(" ")]
  return input.map((item) => Array.isArray(item) ? item.join(" ") : String(item))
}

/** Deterministic values in [-1, 1): FNV-1a of the text, then a xorshift per dimension. */
const vectorOf = (text: string, size: number): ReadonlyArray<number> => {
  let state = 0x811c9dc5
  for (let index = 0; index < text.length; index++) {
    state = Math.imul(state ^ text.charCodeAt(index), 0x01000193)
  }
  state ||= 1
  const vector: Array<number> = []
  for (let dimension = 0; dimension < size; dimension++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    vector.push(Math.round(((state >>> 0) / 0x80000000 - 1) * 1e6) / 1e6)
  }
  return vector
}
