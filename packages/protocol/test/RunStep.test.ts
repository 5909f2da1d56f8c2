import { assert, describe, it } from "@effect/vitest"
import { RunStep } from "@switchyard/protocol"
import { Result, Schema } from "effect"

const step = {
  id: "step_1",
  object: "thread.run.step",
  created_at: 1,
  assistant_id: "asst_1",
  thread_id: "thread_1",
  run_id: "run_1",
  type: "message_creation",
  status: "failed",
  step_details: { type: "message_creation", message_creation: { message_id: "msg_1" } },
  last_error: { code: "server_error", message: "upstream failed" },
  expired_at: null,
  cancelled_at: null,
  failed_at: 2,
  completed_at: null,
  metadata: null,
  usage: { prompt_tokens: 1, completion_tokens: 0, total_tokens: 1 }
}

describe("RunStep", () => {
  it("describes a failed message_creation step", () => {
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(RunStep.RunStep)(step)))
  })
  it("describes a page of steps", () => {
    const page = { object: "list", data: [step], first_id: "step_1", last_id: "step_1", has_more: false }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(RunStep.RunStepList)(page)))
  })
  it("rejects a status outside the step states", () => {
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(RunStep.RunStep)({ ...step, status: "queued" })))
  })
})
