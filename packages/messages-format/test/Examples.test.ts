import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Result } from "effect"
import { toChat, toEvents, toMessage } from "../examples/MessagesOverChat.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it("MessagesOverChat: a request becomes a chat request, or a 400 naming the member", () => {
    const chat = toChat({ model: "claude-sonnet-4-5", max_tokens: 64, messages: [{ role: "user", content: "Hi" }] })
    assert.deepStrictEqual(Result.getOrThrow(chat).messages, [{ role: "user", content: "Hi" }])
    const refused = toChat({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "Hi" }] })
    assert.strictEqual(Result.isFailure(refused) ? refused.failure.param : undefined, "max_tokens")
  })

  it("MessagesOverChat: an answer becomes a Message, and chunks become events", () => {
    const message = toMessage({
      id: "c1",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }]
    })
    assert.deepInclude(message, { content: [{ type: "text", text: "Hello" }], stop_reason: "end_turn" })
    const events = toEvents([{ id: "c1", model: "gpt-4o", choices: [{ index: 0, delta: { content: "Hi" } }] }], 3)
    assert.deepStrictEqual(events.map((event) => event.type), [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop"
    ])
  })
})
