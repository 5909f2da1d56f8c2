import { describe, it } from "@effect/vitest"
import { Hooks, InvalidInput } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const before = InvalidInput.decodeInputResult(Hooks.BeforeRequestHook, { root: "hook" })
const after = InvalidInput.decodeInputResult(Hooks.AfterRequestHook, { root: "hook" })

describe("Hooks", () => {
  it("accepts deny in a before hook's verdicts", () => {
    accepts(before, { id: "h", on_fail: { deny: true, feedback: { value: -1 } }, on_success: { deny: false } })
  })
  it("rejects deny in an after hook's verdicts", () => {
    rejects(after, { id: "h", on_success: { deny: true } }, "hook.on_success.deny", "unknown field")
  })
  it("accepts async only on after hooks", () => {
    accepts(after, { id: "h", async: true })
    rejects(before, { id: "h", async: true }, "hook.async", "unknown field")
  })
  it("requires feedback numbers and a metadata object", () => {
    rejects(
      before,
      { id: "h", on_fail: { feedback: { value: "high" } } },
      "hook.on_fail.feedback.value",
      "must be a number"
    )
    rejects(
      before,
      { id: "h", on_fail: { feedback: { metadata: [] } } },
      "hook.on_fail.feedback.metadata",
      "must be an object"
    )
  })
})
