import { assert, describe, it } from "@effect/vitest"
import { type GatewayRequest, GatewayResponse, type ProviderRegistry } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { greeting, promptsLive } from "../examples/RunPrompt.ts"

/** An OpenAI stand-in that records what reached it and answers one completion. */
const recordingAdapter = () => {
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: (target) =>
      Effect.succeed((request) =>
        Effect.sync(() => {
          received.push(request)
          return GatewayResponse.json({
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: `Ahoy (${target.api_key})` } }]
          })
        })
      )
  }
  return { adapter, received }
}

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("RunPrompt: the rendered prompt reaches the prompt's provider with the caller's key and overrides", () => {
    const openai = recordingAdapter()
    return Effect.gen(function*() {
      const answer = yield* greeting
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(answer.headers["x-gateway-provider"], "openai")
      assert.deepStrictEqual(answer._tag === "Json" ? answer.body() : undefined, {
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: "Ahoy (sk-123)" } }]
      })
      assert.deepStrictEqual(openai.received[0]?.body, {
        model: "gpt-4o-mini",
        temperature: 0.7,
        messages: [
          { role: "system", content: "Answer as a pirate." },
          { role: "user", content: "Greet Ada." }
        ]
      })
    }).pipe(Effect.provide(promptsLive([openai.adapter], ":memory:")))
  })
})
