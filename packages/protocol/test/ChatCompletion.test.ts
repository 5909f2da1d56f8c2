import { assert, describe, it } from "@effect/vitest"
import { ChatCompletion } from "@switchyard/protocol"
import { Result, Schema } from "effect"

const decode = Schema.decodeUnknownResult(ChatCompletion.ChatCompletion)

const answer = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1732000000,
  model: "gpt-4o",
  system_fingerprint: "fp_1",
  choices: [{
    index: 0,
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
      content_blocks: [{ type: "text", text: "thinking..." }]
    },
    finish_reason: "tool_calls",
    logprobs: {
      content: [{ token: "a", logprob: -0.1, bytes: [97], top_logprobs: [{ token: "a", logprob: -0.1, bytes: [97] }] }]
    }
  }],
  usage: {
    prompt_tokens: 9,
    completion_tokens: 3,
    total_tokens: 12,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 }
  }
}

describe("ChatCompletion", () => {
  it("decodes a full answer", () => {
    assert.isTrue(Result.isSuccess(decode(answer)))
  })

  it("keeps provider extras at every level", () => {
    const result = decode({ ...answer, provider: "x", choices: [{ ...answer.choices[0], stop_reason: "end" }] })
    if (Result.isFailure(result)) return assert.fail(result.failure.message)
    assert.strictEqual(result.success["provider"], "x")
    assert.strictEqual(result.success.choices[0]?.["stop_reason"], "end")
  })

  it("accepts an answer without usage or fingerprint", () => {
    const { usage: _usage, system_fingerprint: _fp, ...rest } = answer
    assert.isTrue(Result.isSuccess(decode(rest)))
  })

  it("rejects another object type", () => {
    assert.isTrue(Result.isFailure(decode({ ...answer, object: "chat.completion.chunk" })))
  })

  it("rejects a choice without message", () => {
    assert.isTrue(Result.isFailure(decode({ ...answer, choices: [{ index: 0, finish_reason: "stop" }] })))
  })
})
