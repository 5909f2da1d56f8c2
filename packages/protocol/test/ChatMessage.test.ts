import { assert, describe, it } from "@effect/vitest"
import { ChatMessage, InvalidInput } from "@switchyard/protocol"
import { Schema } from "effect"
import { accepts, rejects } from "./support/Decode.ts"

const decode = InvalidInput.decodeInputResult(ChatMessage.ChatMessage)

describe("ChatMessage", () => {
  it("tells messages apart by role", () => {
    const message = accepts(decode, { role: "tool", content: "42", tool_call_id: "c1" })
    assert.strictEqual(message.role, "tool")
  })

  it("accepts an assistant refusal with content absent when it calls a function", () => {
    accepts(decode, { role: "assistant", function_call: { name: "f", arguments: "{}" } })
  })

  it("rejects an assistant with an empty tool_calls list and no content", () => {
    rejects(
      decode,
      { role: "assistant", tool_calls: [] },
      "content",
      "is required unless tool_calls or function_call is given"
    )
  })

  it("accepts refusal parts only from the assistant", () => {
    accepts(decode, { role: "assistant", content: [{ type: "refusal", refusal: "no" }] })
    rejects(
      decode,
      { role: "user", content: [{ type: "refusal", refusal: "no" }] },
      "content[0].type",
      "must be one of"
    )
  })

  it("rejects a tool call of another type", () => {
    rejects(
      decode,
      { role: "assistant", tool_calls: [{ id: "c", type: "code", function: { name: "f", arguments: "" } }] },
      "tool_calls[0].type",
      "must be \"function\""
    )
  })

  it("is a plain Schema usable elsewhere", () => {
    assert.isTrue(Schema.is(ChatMessage.ChatMessage)({ role: "user", content: "hi" }))
  })
})
