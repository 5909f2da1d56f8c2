import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type GatewayResponse } from "@switchyard/core"
import { FakeBedrock } from "@switchyard/fake-providers"
import { UpstreamClient } from "@switchyard/providers"
import { Effect, Schema } from "effect"
import { build, chat, fakeBedrock, modelId, targetFor, withFake } from "./support/BedrockFake.ts"
import { request } from "./support/Upstream.ts"

const jsonBody = (response: GatewayResponse.GatewayResponse): unknown => {
  assert.strictEqual(response._tag, "Json")
  return response._tag === "Json" ? response.body() : undefined
}

const converseAnswer = (content: ReadonlyArray<unknown>, stopReason = "end_turn", usage: object = {}) =>
  FakeBedrock.converse({
    output: { message: { role: "assistant", content } },
    stopReason,
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, ...usage },
    metrics: { latencyMs: 10 }
  })

const decodeToolChoice = Schema.decodeUnknownSync(
  Schema.Struct({ toolConfig: Schema.optional(Schema.Struct({ toolChoice: Schema.Unknown })) })
)
const decodeFinish = Schema.decodeUnknownSync(
  Schema.Struct({ choices: Schema.Array(Schema.Struct({ finish_reason: Schema.NullOr(Schema.String) })) })
)

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } } }
  }
}

layer(UpstreamClient.UpstreamClient.layer())("BedrockAdapter", (it) => {
  describe("a Converse call", () => {
    it.effect("posts a signed request to /model/{modelId}/converse and maps the answer", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const body = jsonBody(yield* dispatch(request({ body: chat() })))
        assert.deepStrictEqual(fake.refused, [])
        assert.strictEqual(fake.requests[0]?.path, "/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse")
        assert.strictEqual(fake.requests[0]?.modelId, modelId)
        assert.match(
          fake.requests[0]?.headers.authorization ?? "",
          /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/19700101\/us-east-1\/bedrock\/aws4_request/
        )
        assert.deepInclude(body, {
          object: "chat.completion",
          created: 0,
          model: modelId,
          choices: [{
            index: 0,
            message: { role: "assistant", content: "Hello from the fake Bedrock." },
            logprobs: null,
            finish_reason: "stop"
          }],
          usage: {
            prompt_tokens: 12,
            completion_tokens: 6,
            total_tokens: 18,
            prompt_tokens_details: { cached_tokens: 0 }
          }
        })
        assert.match(
          Schema.decodeUnknownSync(Schema.Struct({ id: Schema.String }))(body).id,
          /^chatcmpl-[0-9a-f-]{36}$/
        )
      }))

    it.effect("maps system and developer messages, sampling and stop to the Converse body", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        yield* dispatch(request({
          body: chat({
            messages: [
              { role: "system", content: "Be brief." },
              { role: "developer", content: [{ type: "text", text: "Answer in French." }] },
              { role: "user", content: "hello" },
              { role: "assistant", content: "bonjour" },
              { role: "user", content: [{ type: "text", text: "again" }] }
            ],
            max_tokens: 100,
            max_completion_tokens: 50,
            temperature: 0.2,
            top_p: 0.9,
            stop: "END",
            seed: 7,
            user: "u-1"
          })
        }))
        assert.deepStrictEqual(fake.requests[0]?.body, {
          messages: [
            { role: "user", content: [{ text: "hello" }] },
            { role: "assistant", content: [{ text: "bonjour" }] },
            { role: "user", content: [{ text: "again" }] }
          ],
          system: [{ text: "Be brief." }, { text: "Answer in French." }],
          inferenceConfig: { maxTokens: 50, temperature: 0.2, topP: 0.9, stopSequences: ["END"] }
        })
      }))

    it.effect("sends tools, a required choice, tool calls and merged tool results", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        yield* dispatch(request({
          body: chat({
            messages: [
              { role: "user", content: "weather in Paris and Rome?" },
              {
                role: "assistant",
                content: null,
                tool_calls: [
                  {
                    id: "tooluse_1",
                    type: "function",
                    function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
                  },
                  {
                    id: "tooluse_2",
                    type: "function",
                    function: { name: "get_weather", arguments: "{\"city\":\"Rome\"}" }
                  }
                ]
              },
              { role: "tool", tool_call_id: "tooluse_1", content: "{\"celsius\":21}" },
              { role: "tool", tool_call_id: "tooluse_2", content: "sunny" }
            ],
            tools: [weatherTool],
            tool_choice: "required"
          })
        }))
        assert.deepStrictEqual(fake.requests[0]?.body, {
          messages: [
            { role: "user", content: [{ text: "weather in Paris and Rome?" }] },
            {
              role: "assistant",
              content: [
                { toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } },
                { toolUse: { toolUseId: "tooluse_2", name: "get_weather", input: { city: "Rome" } } }
              ]
            },
            {
              role: "user",
              content: [
                { toolResult: { toolUseId: "tooluse_1", content: [{ json: { celsius: 21 } }] } },
                { toolResult: { toolUseId: "tooluse_2", content: [{ text: "sunny" }] } }
              ]
            }
          ],
          toolConfig: {
            tools: [{
              toolSpec: {
                name: "get_weather",
                description: "Weather of a city",
                inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } }
              }
            }],
            toolChoice: { any: {} }
          }
        })
      }))

    it.effect("names the forced tool, and leaves the tools out for tool_choice none", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const named = { type: "function", function: { name: "get_weather" } }
        yield* dispatch(request({ body: chat({ tools: [weatherTool], tool_choice: named }) }))
        yield* dispatch(request({ body: chat({ tools: [weatherTool], tool_choice: "none" }) }))
        yield* dispatch(request({ body: chat({ tools: [weatherTool] }) }))
        const configs = fake.requests.map((r) => decodeToolChoice(r.body).toolConfig?.toolChoice)
        assert.deepStrictEqual(configs, [{ tool: { name: "get_weather" } }, undefined, { auto: {} }])
      }))

    it.effect("maps toolUse blocks to tool_calls with JSON-string arguments", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(converseAnswer([
          { toolUse: { toolUseId: "tooluse_9", name: "get_weather", input: { city: "Oslo" } } }
        ], "tool_use"))
        const body = jsonBody(yield* dispatch(request({ body: chat({ tools: [weatherTool] }) })))
        assert.deepNestedInclude(body, {
          "choices[0].message": {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "tooluse_9",
              type: "function",
              function: { name: "get_weather", arguments: "{\"city\":\"Oslo\"}" }
            }]
          },
          "choices[0].finish_reason": "tool_calls"
        })
      }))

    it.effect("sends a base64 image as bytes with its format", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const content = [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/jpg;base64,/9j/4AAQSkZJRg==" } }
        ]
        yield* dispatch(request({ body: chat({ messages: [{ role: "user", content }] }) }))
        assert.deepNestedInclude(fake.requests[0]?.body, {
          messages: [{
            role: "user",
            content: [{ text: "what is this?" }, { image: { format: "jpeg", source: { bytes: "/9j/4AAQSkZJRg==" } } }]
          }]
        })
      }))

    it.effect("refuses an image link, which Converse cannot fetch", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const content = [{ type: "image_url", image_url: { url: "https://example.com/cat.png" } }]
        const error = yield* Effect.flip(dispatch(request({ body: chat({ messages: [{ role: "user", content }] }) })))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.include(error.message, "base64 data: URLs")
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.effect("maps each stop reason to its finish_reason", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const reasons = ["end_turn", "stop_sequence", "max_tokens", "guardrail_intervened", "content_filtered"]
        const finishes: Array<unknown> = []
        for (const reason of reasons) {
          fake.enqueue(converseAnswer([{ text: "x" }], reason))
          const body = jsonBody(yield* dispatch(request({ body: chat() })))
          finishes.push(decodeFinish(body).choices[0]?.finish_reason)
        }
        assert.deepStrictEqual(finishes, ["stop", "stop", "length", "content_filter", "content_filter"])
      }))

    it.effect("counts cache reads into prompt_tokens and reports them as cached", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(converseAnswer([{ text: "x" }], "end_turn", { cacheReadInputTokens: 100, totalTokens: 115 }))
        const body = jsonBody(yield* dispatch(request({ body: chat() })))
        assert.deepNestedInclude(body, {
          usage: {
            prompt_tokens: 110,
            completion_tokens: 5,
            total_tokens: 115,
            prompt_tokens_details: { cached_tokens: 100 }
          }
        })
      }))

    it.effect("passes thinking on and returns the reasoning when strict_vendor_compliance is false", () =>
      Effect.gen(function*() {
        const fake = yield* fakeBedrock()
        const dispatch = yield* build({ ...targetFor(fake), strict_vendor_compliance: false })
        fake.enqueue(
          converseAnswer([{ reasoningContent: { reasoningText: { text: "Let me think.", signature: "s" } } }, {
            text: "42"
          }])
        )
        const body = jsonBody(
          yield* dispatch(request({ body: chat({ thinking: { type: "enabled", budget_tokens: 1024 } }) }))
        )
        assert.deepNestedInclude(fake.requests[0]?.body, {
          additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } }
        })
        assert.deepNestedInclude(body, {
          "choices[0].message": { role: "assistant", content: "42", reasoning_content: "Let me think." }
        })
      }))
  })
})
