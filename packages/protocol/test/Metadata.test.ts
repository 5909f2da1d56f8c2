import { describe, it } from "@effect/vitest"
import { InvalidInput, Metadata } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const decode = InvalidInput.decodeInputResult(Metadata.Metadata, { root: "metadata" })
const pairs = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"]))

describe("Metadata", () => {
  it("accepts 16 pairs and rejects 17", () => {
    accepts(decode, pairs(16))
    rejects(decode, pairs(17), "metadata", "must have at most 16 pairs")
  })
  it("accepts a 64-character key and rejects 65", () => {
    accepts(decode, { ["k".repeat(64)]: "v" })
    rejects(decode, { ["k".repeat(65)]: "v" }, `metadata.${"k".repeat(65)}`, "key must be at most 64 characters")
  })
  it("accepts a 512-character value and rejects 513", () => {
    accepts(decode, { a: "v".repeat(512) })
    rejects(decode, { a: "v".repeat(513) }, "metadata.a", "must be at most 512 characters")
  })
  it("rejects a value that is not a string", () => {
    rejects(decode, { a: 1 }, "metadata.a", "must be a string (got 1)")
  })
  it("names keys that are not identifiers in brackets", () => {
    rejects(decode, { "x-team": 1 }, "metadata[\"x-team\"]", "must be a string")
  })
})
