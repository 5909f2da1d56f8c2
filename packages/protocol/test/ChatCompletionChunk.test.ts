import { assert, describe, it } from "@effect/vitest"
import { ChatCompletionChunk } from "@switchyard/protocol"
import { Result, Schema } from "effect"

const decode = Schema.decodeUnknownResult(ChatCompletionChunk.ChatCompletionChunk)
const chunk = (choices: ReadonlyArray<unknown>, extra: object = {}) => ({
  id: "c1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices,
  ...extra
})

describe("ChatCompletionChunk", () => {
  it("decodes a first chunk with the role", () => {
    assert.isTrue(
      Result.isSuccess(decode(chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }])))
    )
  })

  it("decodes tool call fragments", () => {
    const result = decode(chunk([{
      index: 0,
      delta: {
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "{\"a\"" } }]
      },
      finish_reason: null
    }]))
    assert.isTrue(Result.isSuccess(result))
  })

  it("decodes the final usage chunk with no choices", () => {
    const result = decode(chunk([], { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }))
    assert.isTrue(Result.isSuccess(result))
  })

  it("accepts usage null and a chunk without finish_reason", () => {
    assert.isTrue(Result.isSuccess(decode(chunk([{ index: 0, delta: {} }], { usage: null }))))
  })

  it("rejects a chunk whose object is a full completion", () => {
    assert.isTrue(Result.isFailure(decode({ ...chunk([]), object: "chat.completion" })))
  })
})
