import { assert, layer } from "@effect/vitest"
import { GoogleAdapters, UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { chat, withFakeAnthropic } from "./support/AnthropicUpstream.ts"
import { fakeVertex } from "./support/GoogleFakes.ts"
import { request } from "./support/Upstream.ts"

/** What a Messages client sent, and the chat body the edge translated it into. */
const messagesBody = {
  model: "claude-sonnet-4-5",
  max_tokens: 64,
  temperature: 0.9,
  messages: [
    { role: "user", content: "weather?" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_a", name: "get_weather", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "no data", is_error: true }] }
  ]
}
const chatMessages = [{ role: "user", content: "weather?" }]

layer(UpstreamClient.UpstreamClient.layer())("AnthropicAdapter and a Messages client", (it) => {
  it.effect("sends the client's own body, with the model and sampling members of the chat body over it", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      const body = chat({ messages: chatMessages, model: "claude-opus-4-1", max_tokens: 64, temperature: 0.1 })
      yield* dispatch({
        ...request({ body }),
        native: { format: "messages", body: messagesBody, messages: body.messages }
      })
      assert.deepStrictEqual(fake.requests[0]?.body, { ...messagesBody, model: "claude-opus-4-1", temperature: 0.1 })
    }))

  it.effect("sends the client's anthropic-beta header with its own body, and not with a translation", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      const body = chat({ messages: chatMessages, max_tokens: 64 })
      const headers = { "anthropic-beta": "interleaved-thinking-2025-05-14" }
      yield* dispatch({
        ...request({ body, headers }),
        native: { format: "messages", body: messagesBody, messages: body.messages }
      })
      yield* dispatch(request({ body, headers }))
      assert.strictEqual(fake.requests[0]?.headers["anthropic-beta"], "interleaved-thinking-2025-05-14")
      assert.isUndefined(fake.requests[1]?.headers["anthropic-beta"])
    }))

  it.effect("translates the chat body once the conversation was rewritten", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      const body = chat({ messages: [{ role: "user", content: "rewritten" }], max_tokens: 64 })
      yield* dispatch({
        ...request({ body }),
        native: { format: "messages", body: messagesBody, messages: chatMessages }
      })
      assert.deepStrictEqual(Object(fake.requests[0]?.body).messages, [
        { role: "user", content: [{ type: "text", text: "rewritten" }] }
      ])
    }))

  it.effect("sends Claude on Vertex AI the client's own body, without model and with Vertex's version", () =>
    Effect.gen(function*() {
      const fake = yield* fakeVertex()
      const client = yield* UpstreamClient.UpstreamClient
      const dispatch = yield* GoogleAdapters.VertexAdapter.make(client).make({
        provider: "vertex-ai",
        custom_host: fake.baseUrl,
        cloud2_project_id: fake.project,
        cloud2_region: fake.region,
        cloud2_service_account_json: fake.serviceAccount
      })
      const body = chat({ messages: chatMessages, model: "claude-sonnet-4@20250514", max_tokens: 64 })
      yield* dispatch({
        ...request({ body }),
        native: { format: "messages", body: messagesBody, messages: body.messages }
      })
      const { model: _, ...rest } = messagesBody
      assert.deepStrictEqual(fake.requests.at(-1)?.body, { ...rest, anthropic_version: "vertex-2023-10-16" })
    }))
})
