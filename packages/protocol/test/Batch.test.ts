import { assert, describe, it } from "@effect/vitest"
import { Batch } from "@switchyard/protocol"
import { Result, Schema } from "effect"
import { accepts, rejects } from "./support/Decode.ts"

const decode = Batch.decodeCreateResult
const base = { input_file_id: "file-1", completion_window: "24h", endpoint: "/v1/chat/completions" }

describe("Batch", () => {
  it("accepts a create body for each endpoint and window", () => {
    for (const endpoint of ["/v1/chat/completions", "/v1/completions", "/v1/embeddings"]) {
      for (const completion_window of ["immediate", "24h"]) accepts(decode, { ...base, endpoint, completion_window })
    }
    accepts(decode, { ...base, metadata: null })
    accepts(decode, { ...base, metadata: { job: "nightly" } })
  })

  const invalid: ReadonlyArray<readonly [string, unknown, string, string]> = [
    [
      "another window",
      { ...base, completion_window: "1h" },
      "completion_window",
      "must be one of \"immediate\", \"24h\" (got \"1h\")"
    ],
    ["another endpoint", { ...base, endpoint: "/v1/images" }, "endpoint", "must be one of"],
    ["a missing input file", { completion_window: "24h", endpoint: "/v1/embeddings" }, "input_file_id", "is required"],
    [
      "17 metadata pairs",
      { ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) },
      "metadata",
      "must have at most 16 pairs"
    ]
  ]
  for (const [name, body, param, rule] of invalid) {
    it(`rejects ${name}`, () => void rejects(decode, body, param, rule))
  }

  it("describes a batch object", () => {
    const batch = {
      id: "batch_1",
      object: "batch",
      endpoint: "/v1/chat/completions",
      input_file_id: "file-1",
      completion_window: "24h",
      status: "validating",
      created_at: 1,
      errors: { object: "list", data: [{ code: "invalid_json", message: "bad line", param: null, line: 3 }] },
      request_counts: { total: 3, completed: 0, failed: 1 },
      metadata: {}
    }
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(Batch.Batch)(batch)))
    assert.isTrue(Result.isFailure(Schema.decodeUnknownResult(Batch.Batch)({ ...batch, status: "paused" })))
  })
})
