import { assert, describe, it } from "@effect/vitest"
import { EmbeddingRequest } from "@switchyard/protocol"
import { accepts, rejects } from "./support/Decode.ts"

const decode = EmbeddingRequest.decodeResult
const base = { model: "text-embedding-3-small", input: "hello" }

describe("EmbeddingRequest", () => {
  describe("accepts every input form", () => {
    for (const input of ["text", ["a", "b"], [1, 2], [[1], [2, 3]]]) {
      it(JSON.stringify(input), () => void accepts(decode, { ...base, input }))
    }
  })

  it("accepts encoding_format, dimensions 1 and user, and keeps extras", () => {
    const body = accepts(decode, { ...base, encoding_format: "base64", dimensions: 1, user: "u", input_type: "query" })
    assert.strictEqual(body["input_type"], "query")
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["an empty string", { ...base, input: "" }, "input", "must not be empty"],
    ["an empty array", { ...base, input: [] }, "input", "must have at least 1 item"],
    ["an empty token list", { ...base, input: [[]] }, "input[0]", "must have at least 1 item"],
    ["a number", { ...base, input: 5 }, "input", "must be a string, an array of strings"],
    [
      "a bad encoding_format",
      { ...base, encoding_format: "int8" },
      "encoding_format",
      "must be one of \"float\", \"base64\""
    ],
    ["dimensions 0", { ...base, dimensions: 0 }, "dimensions", "must be at least 1 (got 0)"],
    ["a missing model", { input: "x" }, "model", "is required"]
  ]
  for (const [name, body, param, rule] of invalid) {
    it(`rejects ${name}`, () => void rejects(decode, body, param, rule))
  }
})
