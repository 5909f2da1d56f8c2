import { assert, layer } from "@effect/vitest"
import type { ProviderTarget } from "@switchyard/core"
import { OpenAIAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { fakeOpenAI, request } from "./support/Upstream.ts"

/** A chat body as the Messages edge makes it: Anthropic's parameters and an earlier answer's thinking. */
const body = {
  model: "gpt-4o",
  max_tokens: 64,
  thinking: { type: "enabled", budget_tokens: 1024 },
  top_k: 5,
  messages: [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello", content_blocks: [{ type: "thinking", thinking: "hm", signature: "s" }] },
    { role: "user", content: "again" }
  ]
}

const sentTo = (provider: string) =>
  Effect.gen(function*() {
    const fake = yield* fakeOpenAI
    const target: ProviderTarget.ProviderTarget = { provider, api_key: "sk-test", custom_host: fake.baseUrl }
    const client = yield* UpstreamClient.UpstreamClient
    const dispatch = yield* OpenAIAdapter.make(client).make(target)
    yield* dispatch(request({ body }))
    return fake.requests[0]?.body
  })

layer(UpstreamClient.UpstreamClient.layer())("OpenAI-format providers and the internal chat members", (it) => {
  it.effect("OpenAI gets neither thinking blocks nor Anthropic's thinking and top_k, which it refuses", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sentTo("openai"), {
        model: "gpt-4o",
        max_tokens: 64,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
          { role: "user", content: "again" }
        ]
      })
    }))

  it.effect("a compatible provider keeps its extras (thinking, top_k) but gets no thinking blocks", () =>
    Effect.gen(function*() {
      const sent = Object(yield* sentTo("together-ai"))
      assert.deepStrictEqual(sent.thinking, body.thinking)
      assert.strictEqual(sent.top_k, 5)
      assert.notProperty(sent.messages[1], "content_blocks")
    }))
})
