import { describe, it } from "@effect/vitest"
import { Guardrails, InvalidInput } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const input = InvalidInput.decodeInputResult(Guardrails.InputGuardrail, { root: "guardrail" })
const output = InvalidInput.decodeInputResult(Guardrails.OutputGuardrail, { root: "guardrail" })

describe("Guardrails", () => {
  it("accepts a stored guardrail id", () => void accepts(input, "gr-123"))
  it("rejects an empty id", () => void rejects(input, "", "guardrail", "must not be empty"))
  it("accepts any extra member whose value is an object: a check and its parameters", () => {
    accepts(input, { id: "inline", deny: true, async: false, "default.regexMatch": { rule: "\\d+", not: true } })
  })
  it("rejects an extra member that is not an object", () => {
    rejects(input, { "default.regexMatch": "\\d+" }, "guardrail[\"default.regexMatch\"]", "must be an object")
    rejects(input, { "default.regexMatch": null }, "guardrail[\"default.regexMatch\"]", "must be an object")
  })
  it("holds feedback only in an input guardrail's verdicts", () => {
    accepts(input, { on_fail: { feedback: { value: 1 } } })
    rejects(input, { on_fail: { deny: true } }, "guardrail.on_fail.deny", "unknown field")
  })
  it("holds feedback and deny in an output guardrail's verdicts", () => {
    accepts(output, { on_fail: { feedback: { value: 1 }, deny: true } })
    rejects(output, { on_success: { notify: true } }, "guardrail.on_success.notify", "unknown field")
  })
  it("types the known members", () => {
    rejects(input, { deny: "yes" }, "guardrail.deny", "must be a boolean")
  })
})
