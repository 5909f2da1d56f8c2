import { assert, describe, it } from "@effect/vitest"
import { ChatReasoning } from "@switchyard/protocol"

describe("ChatReasoning", () => {
  it("reads the reasoning text under either name the adapters use", () => {
    assert.strictEqual(ChatReasoning.textOf({ reasoning_content: "a" }), "a")
    assert.strictEqual(ChatReasoning.textOf({ reasoning: "b" }), "b")
    assert.strictEqual(ChatReasoning.textOf({ reasoning: "" }), undefined)
    assert.strictEqual(ChatReasoning.textOf({ reasoning: 3 }), undefined)
    assert.strictEqual(ChatReasoning.textOf(null), undefined)
  })

  it("keeps the thinking blocks of content_blocks with their signatures and leaves the rest out", () => {
    const blocks = ChatReasoning.blocksOf({
      content_blocks: [
        { type: "text", text: "x" },
        { type: "thinking", thinking: "hm", signature: "sig" },
        { type: "redacted_thinking", data: "enc" },
        { type: "thinking" }
      ]
    })
    assert.deepStrictEqual(blocks, [
      { type: "thinking", thinking: "hm", signature: "sig" },
      { type: "redacted_thinking", data: "enc" }
    ])
    assert.deepStrictEqual(ChatReasoning.blocksOf({ content_blocks: "no" }), [])
  })

  it("reads the block fragments of a chunk's delta", () => {
    const fragments = ChatReasoning.blockDeltasOf({
      content_blocks: [
        { index: 0, delta: { thinking: "hm" } },
        { index: 0, delta: { signature: "sig" } },
        { index: 1, type: "redacted_thinking", data: "enc" },
        { delta: { thinking: "no index" } }
      ]
    })
    assert.deepStrictEqual(fragments, [
      { index: 0, delta: { thinking: "hm" } },
      { index: 0, delta: { signature: "sig" } },
      { index: 1, type: "redacted_thinking", data: "enc" }
    ])
  })

  it("reads the stop sequence a choice names", () => {
    assert.strictEqual(ChatReasoning.stopSequenceOf({ finish_reason: "stop", stop_sequence: "###" }), "###")
    assert.strictEqual(ChatReasoning.stopSequenceOf({ finish_reason: "stop", stop_sequence: null }), undefined)
  })
})
