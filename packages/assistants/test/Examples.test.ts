import { assert, describe, it } from "@effect/vitest"
import { type GatewayRequest, GatewayResponse, type ProviderRegistry } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { askedClaude, assistantsLive } from "../examples/RunThread.ts"

/** An Anthropic stand-in that records what reached it and answers one completion. */
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
              message: { role: "assistant", content: `Rayleigh scattering (${target.api_key})` },
              finish_reason: "stop"
            }],
            usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 }
          })
        })
      )
  }
  return { adapter, received }
}

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("RunThread: the run reaches Anthropic with the thread's key and adds the assistant's answer", () => {
    const anthropic = recordingAdapter()
    return Effect.gen(function*() {
      const { answer, run } = yield* askedClaude
      assert.strictEqual(run.status, "completed")
      assert.deepStrictEqual(run.usage, { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 })
      assert.deepStrictEqual(answer?.content, [
        { type: "text", text: { value: "Rayleigh scattering (sk-ant)", annotations: [] } }
      ])
      assert.deepStrictEqual([answer?.role, answer?.run_id, answer?.assistant_id], [
        "assistant",
        run.id,
        run.assistant_id
      ])
      assert.deepStrictEqual(anthropic.received[0]?.body, {
        model: "claude-sonnet-4-5",
        messages: [
          { role: "system", content: "Answer in one sentence." },
          { role: "user", content: "Why is the sky blue?" }
        ]
      })
    }).pipe(Effect.provide(assistantsLive([anthropic.adapter], ":memory:")))
  })
})
