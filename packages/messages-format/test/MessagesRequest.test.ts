import { assert, describe, it } from "@effect/vitest"
import { MessagesRequest } from "@switchyard/messages-format"
import { Result } from "effect"

const base = { model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] }

const failure = (body: unknown) => {
  const result = MessagesRequest.decode(body)
  return Result.isFailure(result) ? result.failure : undefined
}

describe("MessagesRequest", () => {
  it("accepts a request with every member the gateway serves", () => {
    const result = MessagesRequest.decode({
      ...base,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }]
        },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok", is_error: false }] }
      ],
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
      thinking: { type: "enabled", budget_tokens: 1024 },
      stop_sequences: ["###"],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: "u-1" },
      stream: true,
      // a newer member the gateway does not know is ignored
      service_tier: "auto"
    })
    assert.isTrue(Result.isSuccess(result))
  })

  const refused: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["no max_tokens", { model: "m", messages: base.messages }, "max_tokens", "max_tokens: is required"],
    ["max_tokens 0", { ...base, max_tokens: 0 }, "max_tokens", "max_tokens: must be at least 1 (got 0)"],
    ["temperature above 1", { ...base, temperature: 1.5 }, "temperature", "temperature: must be between 0 and 1"],
    ["no messages", { ...base, messages: [] }, "messages", "messages: must have at least 1 item"],
    [
      "a system role in messages",
      { ...base, messages: [{ role: "system", content: "x" }] },
      "messages[0].role",
      "messages[0].role: must be"
    ],
    [
      "an unknown block type",
      { ...base, messages: [{ role: "user", content: [{ type: "video", url: "x" }] }] },
      "messages[0].content[0].type",
      "messages[0].content[0].type: must be one of"
    ],
    [
      "a tool_use without input",
      { ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f" }] }] },
      "messages[0].content[0].input",
      "messages[0].content[0].input: is required"
    ],
    [
      "a thinking budget below 1024",
      { ...base, thinking: { type: "enabled", budget_tokens: 10 } },
      "thinking.budget_tokens",
      "thinking.budget_tokens: must be at least 1024"
    ],
    [
      "a server tool",
      { ...base, tools: [{ type: "web_search_20250305", name: "web_search" }] },
      "tools[0]",
      "tools[0]"
    ]
  ]
  for (const [name, body, param, message] of refused) {
    it(`refuses ${name}, naming ${param}`, () => {
      const error = failure(body)
      assert.isDefined(error)
      assert.strictEqual(error?.param?.startsWith(param), true, error?.param ?? "no param")
      assert.include(error?.message, message)
    })
  }

  it("counts tokens for a body without max_tokens", () => {
    assert.isTrue(Result.isSuccess(MessagesRequest.decodeCountTokens({ model: "m", messages: base.messages })))
  })
})
