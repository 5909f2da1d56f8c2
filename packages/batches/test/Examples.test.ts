import { assert, describe, it } from "@effect/vitest"
import { type GatewayRequest, GatewayResponse, type ProviderRegistry } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { askedClaudeTwice, batchesLive } from "../examples/RunBatch.ts"

/** An Anthropic stand-in that records what reached it and answers each question. */
const recordingAdapter = () => {
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["anthropic"],
    make: (target) =>
      Effect.succeed((request) =>
        Effect.sync(() => {
          received.push(request)
          return GatewayResponse.json({
            id: "msg_1",
            object: "chat.completion",
            created: 1,
            model: "claude-sonnet-4-5",
            choices: [{
              index: 0,
              message: { role: "assistant", content: `an answer (${target.api_key})` },
              finish_reason: "stop"
            }],
            usage: { prompt_tokens: 8, completion_tokens: 3, total_tokens: 11 }
          })
        })
      )
  }
  return { adapter, received }
}

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.live("RunBatch: both lines reach Anthropic with the batch's key and land in the output file in order", () => {
    const anthropic = recordingAdapter()
    return Effect.gen(function*() {
      const { batch, output } = yield* askedClaudeTwice
      assert.deepStrictEqual([batch.status, batch.request_counts], ["completed", { total: 2, completed: 2, failed: 0 }])
      const lines = output.trim().split("\n").map((line) => JSON.parse(line))
      assert.deepStrictEqual(lines.map((line) => [line.custom_id, line.response.status_code]), [["q1", 200], [
        "q2",
        200
      ]])
      assert.strictEqual(lines[0].response.body.choices[0].message.content, "an answer (sk-ant)")
      assert.strictEqual(anthropic.received.length, 2)
    }).pipe(Effect.provide(batchesLive([anthropic.adapter], ":memory:")))
  })
})
