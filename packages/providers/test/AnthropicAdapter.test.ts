import { assert, describe, layer } from "@effect/vitest"
import { FakeAnthropic } from "@switchyard/fake-providers"
import { AnthropicAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { apiKey, chat, weatherTool, withFakeAnthropic } from "./support/AnthropicUpstream.ts"
import { request } from "./support/Upstream.ts"

const bodyOf = (response: { readonly _tag: string; readonly body?: () => unknown }) => response.body?.()

const build = (target: Parameters<ReturnType<typeof AnthropicAdapter.make>["make"]>[0]) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => AnthropicAdapter.make(client).make(target))

layer(UpstreamClient.UpstreamClient.layer())("AnthropicAdapter", (it) => {
  describe("make", () => {
    it.effect("serves the anthropic provider name", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(AnthropicAdapter.make(yield* UpstreamClient.UpstreamClient).names, ["anthropic"])
      }))

    it.effect("needs an api_key", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "anthropic" }))
        assert.strictEqual(error.param, "api_key")
      }))

    it.effect("refuses a custom_host that is not an http URL", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "anthropic", api_key: "k", custom_host: "ftp://x" }))
        assert.strictEqual(error.param, "custom_host")
      }))
  })

  describe("a text answer", () => {
    it.effect("posts to /v1/messages with x-api-key and anthropic-version", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        yield* dispatch(request({ body: chat() }))
        const sent = fake.requests[0]
        assert.strictEqual(sent?.path, "/v1/messages")
        assert.strictEqual(sent?.headers["x-api-key"], apiKey)
        assert.strictEqual(sent?.headers["anthropic-version"], "2023-06-01")
        assert.strictEqual(sent?.headers.authorization, undefined)
      }))

    it.effect("accepts a custom_host that already ends in /v1", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFakeAnthropic()
        const dispatch = yield* build({ ...target, custom_host: `${fake.baseUrl}/v1/` })
        yield* dispatch(request({ body: chat() }))
        assert.strictEqual(fake.requests[0]?.path, "/v1/messages")
      }))

    it.effect("answers a chat.completion with the provider's id and model, created from the clock", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFakeAnthropic()
        yield* TestClock.setTime(1_700_000_000_500)
        const response = yield* dispatch(request({ body: chat() }))
        assert.deepStrictEqual(bodyOf(response), {
          id: "msg_fake_1",
          object: "chat.completion",
          created: 1_700_000_000,
          model: "claude-sonnet-4-5",
          choices: [{
            index: 0,
            message: { role: "assistant", content: "echo: hello there", refusal: null },
            logprobs: null,
            finish_reason: "stop"
          }],
          usage: {
            prompt_tokens: 2,
            completion_tokens: 3,
            total_tokens: 5,
            prompt_tokens_details: { cached_tokens: 0 }
          }
        })
      }))

    it.effect("moves system and developer messages to the top-level system, with the default max_tokens", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const messages = [
          { role: "system", content: "Be brief." },
          { role: "developer", content: [{ type: "text", text: "Be kind." }] },
          { role: "user", content: "hi" }
        ]
        yield* dispatch(request({ body: chat({ messages, temperature: 0.5, top_p: 0.9, user: "u-1" }) }))
        assert.deepStrictEqual(fake.requests[0]?.body, {
          model: "claude-sonnet-4-5",
          max_tokens: AnthropicAdapter.defaultMaxTokens,
          messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
          system: [{ type: "text", text: "Be brief." }, { type: "text", text: "Be kind." }],
          temperature: 0.5,
          top_p: 0.9,
          metadata: { user_id: "u-1" }
        })
      }))

    it.effect("sends images from data: URLs as base64 and from http URLs as url sources", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const content = [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } }
        ]
        yield* dispatch(request({ body: chat({ messages: [{ role: "user", content }] }) }))
        assert.deepStrictEqual(fake.requests[0]?.body, {
          model: "claude-sonnet-4-5",
          max_tokens: 4096,
          messages: [{
            role: "user",
            content: [
              { type: "text", text: "what is this?" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
              { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } }
            ]
          }]
        })
      }))
  })

  describe("stop reasons", () => {
    it.effect("maps a stop sequence to stop and max_tokens to length", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const stopped = yield* dispatch(request({ body: chat({ stop: "there", max_tokens: 10 }) }))
        const limited = yield* dispatch(request({ body: chat({ max_completion_tokens: 1 }) }))
        assert.deepStrictEqual(
          [fake.requests[0]?.body, fake.requests[1]?.body].map((body) => ({ ...Object(body), messages: undefined })),
          [
            { model: "claude-sonnet-4-5", max_tokens: 10, stop_sequences: ["there"], messages: undefined },
            { model: "claude-sonnet-4-5", max_tokens: 1, messages: undefined }
          ]
        )
        assert.deepInclude(Object(bodyOf(stopped)).choices[0], { finish_reason: "stop" })
        assert.deepInclude(Object(bodyOf(limited)).choices[0], { finish_reason: "length" })
      }))

    it.effect("maps a refusal to content_filter", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(FakeAnthropic.message({ content: [], stop_reason: "refusal" }))
        const response = yield* dispatch(request({ body: chat() }))
        assert.deepInclude(Object(bodyOf(response)).choices[0], { finish_reason: "content_filter" })
      }))
  })

  describe("tools", () => {
    it.effect("sends tools and tool_choice in Anthropic's shape", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const choices = ["auto", "required", "none", { type: "function", function: { name: "get_weather" } }]
        for (const tool_choice of choices) {
          yield* dispatch(request({ body: chat({ tools: [weatherTool], tool_choice, parallel_tool_calls: false }) }))
        }
        assert.deepStrictEqual(fake.requests[0]?.body, {
          ...chat(),
          max_tokens: 4096,
          messages: [{ role: "user", content: [{ type: "text", text: "hello there" }] }],
          tools: [{
            name: "get_weather",
            description: "The weather in a city",
            input_schema: weatherTool.function.parameters
          }],
          tool_choice: { type: "auto", disable_parallel_tool_use: true }
        })
        assert.deepStrictEqual(fake.requests.slice(1).map((sent) => Object(sent.body).tool_choice), [
          { type: "any", disable_parallel_tool_use: true },
          { type: "none" },
          { type: "tool", name: "get_weather", disable_parallel_tool_use: true }
        ])
      }))

    it.effect("answers tool_use blocks as tool_calls with JSON-string arguments", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(FakeAnthropic.message({
          content: [
            { type: "text", text: "Let me look." },
            { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }
          ],
          stop_reason: "tool_use"
        }))
        const response = yield* dispatch(request({ body: chat({ tools: [weatherTool] }) }))
        assert.deepStrictEqual(Object(bodyOf(response)).choices[0], {
          index: 0,
          message: {
            role: "assistant",
            content: "Let me look.",
            refusal: null,
            tool_calls: [{
              id: "toolu_01",
              type: "function",
              function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
            }]
          },
          logprobs: null,
          finish_reason: "tool_calls"
        })
      }))

    it.effect("sends tool calls as tool_use and consecutive tool results as one user turn", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const call = (id: string, city: string) => ({
          id,
          type: "function",
          function: { name: "get_weather", arguments: JSON.stringify({ city }) }
        })
        const messages = [
          { role: "user", content: "weather?" },
          { role: "assistant", content: null, tool_calls: [call("toolu_a", "Paris"), call("toolu_b", "Rome")] },
          { role: "tool", tool_call_id: "toolu_a", content: "sunny" },
          { role: "tool", tool_call_id: "toolu_b", content: "rainy" }
        ]
        yield* dispatch(request({ body: chat({ messages, tools: [weatherTool] }) }))
        assert.deepStrictEqual(Object(fake.requests[0]?.body).messages.slice(1), [
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
              { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Rome" } }
            ]
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_a", content: [{ type: "text", text: "sunny" }] },
              { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "rainy" }] }
            ]
          }
        ])
      }))
  })
})
