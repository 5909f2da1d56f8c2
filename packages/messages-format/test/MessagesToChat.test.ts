import { assert, describe, it } from "@effect/vitest"
import { MessagesRequest, MessagesToChat } from "@switchyard/messages-format"
import { ChatCompletionRequest } from "@switchyard/protocol"
import { Result } from "effect"

const decode = (body: unknown): MessagesRequest.MessagesRequest => {
  const result = MessagesRequest.decode(body)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

const request = decode({
  model: "claude-sonnet-4-5",
  max_tokens: 2048,
  system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is here?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
        { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } }
      ]
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Look it up.", signature: "sig-1" },
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "a" } },
        { type: "tool_use", id: "toolu_2", name: "lookup", input: { q: "b" } }
      ]
    },
    {
      role: "user",
      content: [
        { type: "text", text: "Here you go." },
        { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "A" }] },
        { type: "tool_result", tool_use_id: "toolu_2", content: "B", is_error: true }
      ]
    }
  ],
  tools: [{
    name: "lookup",
    description: "Looks up",
    input_schema: { type: "object" },
    cache_control: { type: "ephemeral" }
  }],
  tool_choice: { type: "tool", name: "lookup", disable_parallel_tool_use: true },
  thinking: { type: "enabled", budget_tokens: 1024 },
  stop_sequences: ["###"],
  temperature: 0.3,
  top_k: 5,
  metadata: { user_id: "u-1" },
  stream: true
})

describe("MessagesToChat", () => {
  const chat = MessagesToChat.toChatRequest(request)

  it("is a chat request the gateway accepts", () => {
    const decoded = ChatCompletionRequest.decodeResult(chat)
    assert.isTrue(Result.isSuccess(decoded), Result.isFailure(decoded) ? decoded.failure.message : "")
  })

  it("keeps system blocks with cache_control, images as data URLs and documents as files", () => {
    assert.deepStrictEqual(chat.messages, [
      { role: "system", content: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] },
      {
        role: "user",
        content: [
          { type: "text", text: "What is here?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
          { type: "file", file: { file_data: "https://example.com/a.pdf" } }
        ]
      },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "lookup", arguments: "{\"q\":\"a\"}" } },
          { id: "toolu_2", type: "function", function: { name: "lookup", arguments: "{\"q\":\"b\"}" } }
        ],
        content_blocks: [{ type: "thinking", thinking: "Look it up.", signature: "sig-1" }]
      },
      // tool results first, right after the calls they answer, then the rest of the turn
      { role: "tool", tool_call_id: "toolu_1", content: "A" },
      { role: "tool", tool_call_id: "toolu_2", content: "B" },
      { role: "user", content: [{ type: "text", text: "Here you go." }] }
    ])
  })

  it("maps the parameters to their chat names", () => {
    const { messages: _, ...rest } = chat
    assert.deepStrictEqual(rest, {
      model: "claude-sonnet-4-5",
      max_tokens: 2048,
      stop: ["###"],
      temperature: 0.3,
      top_k: 5,
      tools: [{
        type: "function",
        function: { name: "lookup", parameters: { type: "object" }, description: "Looks up" },
        cache_control: { type: "ephemeral" }
      }],
      tool_choice: { type: "function", function: { name: "lookup" } },
      parallel_tool_calls: false,
      thinking: { type: "enabled", budget_tokens: 1024 },
      user: "u-1",
      stream: true,
      stream_options: { include_usage: true }
    })
  })

  it("maps each tool choice", () => {
    const choice = (tool_choice: unknown) =>
      MessagesToChat.toChatRequest(decode({
        model: "m",
        max_tokens: 1,
        messages: [{ role: "user", content: "x" }],
        tools: [{ name: "f", input_schema: {} }],
        tool_choice
      })).tool_choice
    assert.strictEqual(choice({ type: "auto" }), "auto")
    assert.strictEqual(choice({ type: "any" }), "required")
    assert.strictEqual(choice({ type: "none" }), "none")
  })

  it("leaves thinking out when it is disabled, and an assistant turn of calls only has null content", () => {
    const chat = MessagesToChat.toChatRequest(decode({
      model: "m",
      max_tokens: 1,
      thinking: { type: "disabled" },
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }
      ]
    }))
    assert.isUndefined(chat.thinking)
    assert.deepInclude(Object(chat.messages).at(-1), { role: "assistant", content: null })
  })
})
