import { describe, expect, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { translated } from "../examples/TranslateStream.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it("TranslateStream: the chat body asks for usage, and the events end in response.completed", () => {
    expect(translated.chat).toEqual({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "Say hi" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    expect(translated.events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed"
    ])
    expect(translated.response).toMatchObject({
      status: "completed",
      output: [{ type: "message", content: [{ type: "output_text", text: "Hi" }] }],
      usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 }
    })
  })
})
