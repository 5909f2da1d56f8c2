import { assert, describe, it } from "@effect/vitest"
import { ThreadMessage } from "@switchyard/protocol"
import { Effect, Result, Schema } from "effect"
import { accepts, rejects } from "./support/Decode.ts"

describe("ThreadMessage", () => {
  it("accepts a create body with text, parts, attachments and metadata", () => {
    accepts(ThreadMessage.decodeCreateResult, { role: "user", content: "Hi" })
    accepts(ThreadMessage.decodeCreateResult, {
      role: "assistant",
      content: [{ type: "text", text: "Hi" }, {
        type: "image_file",
        image_file: { file_id: "file-1", detail: "auto" }
      }],
      attachments: [{ file_id: "file-2", tools: [{ type: "code_interpreter" }] }],
      metadata: { a: "b" }
    })
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string, string]> = [
    [
      "a system role",
      { role: "system", content: "x" },
      "role",
      "must be one of \"user\", \"assistant\" (got \"system\")"
    ],
    ["a missing content", { role: "user" }, "content", "is required"],
    [
      "a value of 513 characters",
      { role: "user", content: "x", metadata: { a: "v".repeat(513) } },
      "metadata.a",
      "must be at most 512 characters"
    ],
    [
      "an unknown part",
      { role: "user", content: [{ type: "audio" }] },
      "content[0].type",
      "must be one of \"image_file\", \"image_url\", \"text\""
    ]
  ]
  for (const [name, body, param, rule] of invalid) {
    it(`rejects ${name}`, () => void rejects(ThreadMessage.decodeCreateResult, body, param, rule))
  }

  it.effect("modifies only metadata, within its limits", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* ThreadMessage.decodeModify({ metadata: { k: "v" } }), { metadata: { k: "v" } })
      const error = yield* Effect.flip(ThreadMessage.decodeModify({ metadata: { ["k".repeat(65)]: "v" } }))
      assert.include(error.message, "key must be at most 64 characters")
    }))

  it("describes a stored message", () => {
    const message = {
      id: "msg_1",
      object: "thread.message",
      created_at: 1,
      thread_id: "thread_1",
      status: "incomplete",
      incomplete_details: { reason: "content_filter" },
      completed_at: null,
      incomplete_at: 2,
      role: "assistant",
      content: [{ type: "text", text: { value: "Hi", annotations: [] } }],
      assistant_id: "asst_1",
      run_id: "run_1",
      attachments: null,
      metadata: {}
    }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(ThreadMessage.ThreadMessage)(message)))
    assert.isTrue(
      Result.isFailure(Schema.decodeUnknownResult(ThreadMessage.ThreadMessage)({ ...message, object: "message" }))
    )
  })
})
