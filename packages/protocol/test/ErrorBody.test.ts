import { assert, describe, it } from "@effect/vitest"
import { ErrorBody, InvalidInput } from "@switchyard/protocol"
import { Result, Schema } from "effect"

describe("ErrorBody", () => {
  it("turns an InvalidInput into a 400 body", () => {
    const body = ErrorBody.fromInvalidInput(
      new InvalidInput.InvalidInput({ message: "n: must be an integer (got 1.5)", param: "n" })
    )
    assert.deepStrictEqual(body, {
      error: { message: "n: must be an integer (got 1.5)", type: "invalid_request_error", param: "n", code: null }
    })
  })
  it("carries hook_results beside the error", () => {
    const body = {
      error: { message: "denied", type: "hooks_failed", param: null, code: null },
      hook_results: { before_request_hooks: [] }
    }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(ErrorBody.ErrorBody)(body)))
  })
  it("requires param and code, null when they do not apply", () => {
    assert.isTrue(
      Result.isFailure(Schema.decodeUnknownResult(ErrorBody.ErrorBody)({ error: { message: "m", type: "t" } }))
    )
  })
})
