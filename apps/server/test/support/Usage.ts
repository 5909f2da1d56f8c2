/** What the usage-limit tests share: a provider answer that reports a known usage, and a budget on one key. */
import { Behaviour } from "@switchyard/fake-providers"

/** A chat completion that reports `prompt` + `completion` tokens of usage. */
export const answerUsing = (prompt: number, completion: number) =>
  Behaviour.json(200, {
    id: "chatcmpl-fixed",
    object: "chat.completion",
    created: 0,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
  })

/** 20 tokens a call: the spec's own example ("at 20 tokens a call, a limit of 50 admits 3 sequential calls"). */
export const twentyTokens = answerUsing(10, 10)

/** The body of a usage-limit policy of `creditLimit` tokens on the API key `keyId`, per key. */
export const tokenBudget = (keyId: string, creditLimit: number, name = "token budget") => ({
  name,
  conditions: [{ key: "api_key", value: keyId }],
  group_by: [{ key: "api_key" }],
  type: "tokens",
  credit_limit: creditLimit
})
