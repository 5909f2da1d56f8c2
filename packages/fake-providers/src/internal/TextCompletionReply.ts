import type { ReplyIdentity } from "./ChatCompletionReply.ts"
import { countWords, field, stringField } from "./JsonFields.ts"

/** A `text_completion` object echoing the prompt (the first one, when the prompt is a list). */
export const textCompletion = (body: unknown, identity: ReplyIdentity) => {
  const prompt = field(body, "prompt")
  const promptText = typeof prompt === "string" ? prompt : Array.isArray(prompt) ? String(prompt[0] ?? "") : ""
  const text = `echo: ${promptText}`
  const promptTokens = countWords(promptText)
  const completionTokens = countWords(text)
  return {
    id: identity.id,
    object: "text_completion",
    created: identity.created,
    model: stringField(body, "model") ?? "fake-model",
    choices: [{ text, index: 0, logprobs: null, finish_reason: "stop" }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens
    }
  }
}

/** The SSE events of a streamed text completion: the text in word-sized pieces, then `data: [DONE]`. */
export const textCompletionEvents = (body: unknown, identity: ReplyIdentity): ReadonlyArray<string> => {
  const whole = textCompletion(body, identity)
  const text = whole.choices[0]?.text ?? ""
  const pieces = text.split(/(?<= )/)
  const chunk = (piece: string, finishReason: string | null) => ({
    id: whole.id,
    object: "text_completion",
    created: whole.created,
    model: whole.model,
    choices: [{ text: piece, index: 0, logprobs: null, finish_reason: finishReason }]
  })
  return [
    ...pieces.map((piece) => `data: ${JSON.stringify(chunk(piece, null))}\n\n`),
    `data: ${JSON.stringify(chunk("", "stop"))}\n\n`,
    "data: [DONE]\n\n"
  ]
}
