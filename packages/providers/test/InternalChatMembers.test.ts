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
    { role: "system", content: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] },
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello", content_blocks: [{ type: "thinking", thinking: "hm", signature: "s" }] },
    { role: "user", content: "again" }
  ],
  tools: [{ type: "function", function: { name: "f" }, cache_control: { type: "ephemeral" } }]
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
  it.effect("OpenAI gets neither thinking blocks nor Anthropic's thinking, top_k and cache_control, which it refuses", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* sentTo("openai"), {
        model: "gpt-4o",
        max_tokens: 64,
        messages: [
          { role: "system", content: [{ type: "text", text: "Be brief." }] },
          { role: "user", content: "hi" },
          { role: "assistant", content: "hello" },
          { role: "user", content: "again" }
        ],
        tools: [{ type: "function", function: { name: "f" } }]
      })
    }))

  it.effect("a compatible provider keeps its extras (thinking, top_k, cache_control) but gets no thinking blocks", () =>
    Effect.gen(function*() {
      const sent = Object(yield* sentTo("together-ai"))
      assert.deepStrictEqual(sent.thinking, body.thinking)
      assert.strictEqual(sent.top_k, 5)
      assert.deepStrictEqual(sent.messages[0], body.messages[0])
      assert.deepStrictEqual(sent.tools, body.tools)
      assert.notProperty(sent.messages[2], "content_blocks")
    }))

  it.effect("a body without any of them is sent as it is", () =>
    Effect.gen(function*() {
      const fake = yield* fakeOpenAI
      const client = yield* UpstreamClient.UpstreamClient
      const dispatch = yield* OpenAIAdapter.make(client).make({
        provider: "openai",
        api_key: "sk-test",
        custom_host: fake.baseUrl
      })
      const plain = { model: "gpt-4o", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] }
      yield* dispatch(request({ body: plain }))
      assert.deepStrictEqual(fake.requests[0]?.body, plain)
    }))
})
