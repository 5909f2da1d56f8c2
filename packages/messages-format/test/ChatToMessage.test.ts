import { assert, describe, it } from "@effect/vitest"
import { ChatToMessage, TokenEstimate } from "@switchyard/messages-format"

const completion = (message: Record<string, unknown>, finish: string, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish, ...extra }],
  usage: { prompt_tokens: 30, completion_tokens: 7, total_tokens: 37, prompt_tokens_details: { cached_tokens: 10 } }
})

describe("ChatToMessage", () => {
  it("gives thinking blocks first, then text, then one tool_use per call", () => {
    const message = ChatToMessage.toMessage(completion({
      content: "Checking.",
      content_blocks: [{ type: "text", text: "Checking." }, { type: "thinking", thinking: "Hm.", signature: "s" }],
      tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{\"a\":1}" } }]
    }, "tool_calls"))
    assert.deepStrictEqual(message, {
      id: "chatcmpl-1",
      type: "message",
      role: "assistant",
      model: "gpt-4o",
      content: [
        { type: "thinking", thinking: "Hm.", signature: "s" },
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } }
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 }
    })
  })

  it("maps each finish reason to Anthropic's stop reason", () => {
    const reason = (finish: string, extra = {}) =>
      ChatToMessage.toMessage(completion({ content: "x" }, finish, extra))?.stop_reason
    assert.strictEqual(reason("stop"), "end_turn")
    assert.strictEqual(reason("stop", { stop_sequence: "###" }), "stop_sequence")
    assert.strictEqual(reason("length"), "max_tokens")
    assert.strictEqual(reason("tool_calls"), "tool_use")
    assert.strictEqual(reason("content_filter"), "refusal")
  })

  it("gives reasoning text without blocks as a thinking block with an empty signature", () => {
    const message = ChatToMessage.toMessage(completion({ content: "4", reasoning_content: "2+2" }, "stop"))
    assert.deepStrictEqual(message?.content, [
      { type: "thinking", thinking: "2+2", signature: "" },
      { type: "text", text: "4" }
    ])
  })

  it("keeps arguments that are no JSON object under raw", () => {
    assert.deepStrictEqual(ChatToMessage.inputOf("[1]"), { raw: "[1]" })
    assert.deepStrictEqual(ChatToMessage.inputOf("{oops"), { raw: "{oops" })
    assert.deepStrictEqual(ChatToMessage.inputOf(""), {})
  })

  it("answers undefined for a body that is no chat completion", () => {
    assert.isUndefined(ChatToMessage.toMessage({ object: "list", data: [] }))
  })
})

describe("TokenEstimate", () => {
  it("counts about four characters a token over system, messages and tools, and a fixed cost per image", () => {
    const text = TokenEstimate.inputTokens({
      system: "x".repeat(40),
      messages: [{ role: "user", content: "y".repeat(40) }]
    })
    assert.strictEqual(text, 20)
    const image = TokenEstimate.inputTokens({
      messages: [{
        role: "user",
        content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }]
      }]
    })
    assert.strictEqual(image, 1 + 1_600)
  })
})
