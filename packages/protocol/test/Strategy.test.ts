// Strategy conditions have a `then` member by the interface; these objects are never awaited.
/* oxlint-disable unicorn/no-thenable */
import { describe, it } from "@effect/vitest"
import { InvalidInput, Strategy } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const decode = InvalidInput.decodeInputResult(Strategy.Strategy, { root: "strategy" })

describe("Strategy", () => {
  it("accepts each mode", () => {
    for (const mode of ["single", "loadbalance", "fallback"]) accepts(decode, { mode })
    accepts(decode, {
      mode: "conditional",
      conditions: [{ query: { "params.model": { $in: ["a"] } }, then: "a" }],
      default: "a"
    })
  })
  it("requires a mode", () => void rejects(decode, {}, "strategy.mode", "is required"))
  it("requires query and then in each condition", () => {
    rejects(
      decode,
      { mode: "conditional", conditions: [{ then: "a" }], default: "a" },
      "strategy.conditions[0].query",
      "is required"
    )
    rejects(
      decode,
      { mode: "conditional", conditions: [{ query: {} }], default: "a" },
      "strategy.conditions[0].then",
      "is required"
    )
  })
  it("rejects conditional mode without conditions and default", () => {
    rejects(decode, { mode: "conditional" }, "strategy", "conditional mode requires conditions and default")
  })
})
