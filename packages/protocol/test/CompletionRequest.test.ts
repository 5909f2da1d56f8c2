import { assert, describe, it } from "@effect/vitest"
import { CompletionRequest } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const decode = CompletionRequest.decodeResult
const base = { model: "gpt-3.5-turbo-instruct", prompt: "Say hi" }

describe("CompletionRequest", () => {
  describe("accepts every prompt form", () => {
    for (const prompt of ["text", ["a", "b"], [1, 2, 3], [[1, 2], [3]]]) {
      it(JSON.stringify(prompt), () => void accepts(decode, { ...base, prompt }))
    }
  })

  it("keeps unknown members", () => {
    assert.strictEqual(accepts(decode, { ...base, top_k: 40 })["top_k"], 40)
  })

  it("accepts echo with max_tokens 0 and every nullable field as null", () => {
    accepts(decode, { ...base, echo: true, max_tokens: 0, suffix: null, logprobs: null, best_of: null, seed: null })
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["a missing prompt", { model: "m" }, "prompt", "is required"],
    ["a mixed prompt", { ...base, prompt: [1, "a"] }, "prompt[1]", "must be"],
    ["a prompt of floats", { ...base, prompt: [1.5] }, "prompt[0]", "must be an integer"],
    ["logprobs 6", { ...base, logprobs: 6 }, "logprobs", "must be between 0 and 5 (got 6)"],
    ["logprobs -1", { ...base, logprobs: -1 }, "logprobs", "must be between 0 and 5 (got -1)"],
    ["temperature 2.1", { ...base, temperature: 2.1 }, "temperature", "must be between 0 and 2"],
    ["top_p 1.1", { ...base, top_p: 1.1 }, "top_p", "must be between 0 and 1"],
    ["n 129", { ...base, n: 129 }, "n", "must be between 1 and 128"],
    ["best_of 21", { ...base, best_of: 21 }, "best_of", "must be between 0 and 20"],
    ["presence_penalty -2.5", { ...base, presence_penalty: -2.5 }, "presence_penalty", "must be between -2 and 2"],
    ["5 stop sequences", { ...base, stop: ["1", "2", "3", "4", "5"] }, "stop", "must have at most 4 items"],
    [
      "stream_options without stream",
      { ...base, stream_options: { include_usage: true } },
      "stream_options",
      "is only allowed when stream is true"
    ],
    ["a negative max_tokens", { ...base, max_tokens: -1 }, "max_tokens", "must be at least 0"],
    ["a logit bias of 101", { ...base, logit_bias: { "7": 101 } }, "logit_bias[\"7\"]", "must be between -100 and 100"]
  ]
  for (const [name, body, param, rule] of invalid) {
    it(`rejects ${name}`, () => void rejects(decode, body, param, rule))
  }

  it("accepts logprobs 0 and 5", () => {
    accepts(decode, { ...base, logprobs: 0 })
    accepts(decode, { ...base, logprobs: 5 })
  })
})
