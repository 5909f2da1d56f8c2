import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { FakeGemini } from "@switchyard/fake-providers"
import { GoogleAdapters, UpstreamClient } from "@switchyard/providers"
import { Effect, Schema } from "effect"
import { collectChunks, fakeGemini } from "./support/GoogleFakes.ts"
import { request } from "./support/Upstream.ts"

const withFake = Effect.gen(function*() {
  const fake = yield* fakeGemini
  const client = yield* UpstreamClient.UpstreamClient
  const dispatch = yield* GoogleAdapters.GeminiAdapter.make(client).make({
    provider: "google",
    api_key: "gemini-key",
    custom_host: fake.baseUrl,
    strict_vendor_compliance: false
  })
  const stream = (body: GatewayRequest.JsonObject) =>
    dispatch(request({ body: { ...body, stream: true }, stream: true }))
  return { fake, stream }
})

const chat = { model: "gemini-2.5-flash", messages: [{ role: "user", content: "hello there" }] }

const ToolCallChunk = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    delta: Schema.Struct({
      tool_calls: Schema.Array(Schema.Struct({
        index: Schema.Number,
        id: Schema.String,
        type: Schema.String,
        function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
      }))
    })
  }))
})

/** Each chunk's choices without the envelope. */
const choicesOf = (chunks: ReadonlyArray<GatewayRequest.JsonObject>) => chunks.map((chunk) => chunk.choices)

layer(UpstreamClient.UpstreamClient.layer())("Gemini streams", (it) => {
  describe("text", () => {
    it.effect("streams the role first, content deltas, the finish reason, then usage when asked", () =>
      Effect.gen(function*() {
        const { fake, stream } = yield* withFake
        const chunks = yield* collectChunks(yield* stream({ ...chat, stream_options: { include_usage: true } }))
        assert.strictEqual(fake.requests[0]?.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        assert.deepStrictEqual(choicesOf(chunks), [
          [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          [{ index: 0, delta: { content: "You said:" }, finish_reason: null }],
          [{ index: 0, delta: { content: " hello there" }, finish_reason: null }],
          [{ index: 0, delta: {}, finish_reason: "stop" }],
          []
        ])
        assert.deepStrictEqual(chunks.at(-1)?.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 })
        assert.deepInclude(chunks[0], { object: "chat.completion.chunk", model: "gemini-2.5-flash" })
        assert.isTrue(chunks.every((chunk) => chunk.id === chunks[0]?.id))
      }))

    it.effect("sends no usage chunk unless include_usage", () =>
      Effect.gen(function*() {
        const { stream } = yield* withFake
        const chunks = yield* collectChunks(yield* stream(chat))
        assert.isTrue(chunks.every((chunk) => chunk.usage === undefined))
      }))

    it.effect("streams thought summaries as reasoning_content when vendor extras are allowed", () =>
      Effect.gen(function*() {
        const { fake, stream } = yield* withFake
        fake.enqueue(FakeGemini.events([
          { candidates: [{ content: { parts: [{ text: "pondering", thought: true }], role: "model" } }] },
          { candidates: [{ content: { parts: [{ text: "42" }], role: "model" }, finishReason: "STOP" }] }
        ]))
        const chunks = yield* collectChunks(
          yield* stream({ ...chat, thinking: { type: "enabled", budget_tokens: 512 } })
        )
        assert.deepInclude(fake.requests[0]?.body, {
          generationConfig: { thinkingConfig: { thinkingBudget: 512, includeThoughts: true } }
        })
        assert.deepStrictEqual(choicesOf(chunks).slice(1, 3), [
          [{ index: 0, delta: { reasoning_content: "pondering" }, finish_reason: null }],
          [{ index: 0, delta: { content: "42" }, finish_reason: null }]
        ])
      }))
  })

  describe("tool calls", () => {
    it.effect("streams each function call as a tool call delta with its index and finishes with tool_calls", () =>
      Effect.gen(function*() {
        const { fake, stream } = yield* withFake
        fake.enqueue(FakeGemini.events([{
          candidates: [{
            content: {
              parts: [
                { functionCall: { name: "get_weather", args: { city: "Paris" } } },
                { functionCall: { name: "get_weather", args: { city: "Rome" } } }
              ],
              role: "model"
            },
            finishReason: "STOP"
          }]
        }]))
        const chunks = yield* collectChunks(yield* stream(chat))
        const calls = Schema.decodeUnknownSync(ToolCallChunk)(chunks[1]).choices[0]?.delta.tool_calls ?? []
        assert.deepStrictEqual(calls.map((call) => call.index), [0, 1])
        assert.deepStrictEqual(calls[1]?.function, { name: "get_weather", arguments: "{\"city\":\"Rome\"}" })
        assert.strictEqual(calls[1]?.type, "function")
        assert.notStrictEqual(calls[0]?.id, calls[1]?.id)
        assert.deepStrictEqual(choicesOf(chunks).at(-1), [{ index: 0, delta: {}, finish_reason: "tool_calls" }])
      }))
  })

  describe("failures", () => {
    it.effect("ends a stream cut before its finish reason with UpstreamUnreachable", () =>
      Effect.gen(function*() {
        const { fake, stream } = yield* withFake
        fake.enqueue(FakeGemini.events([
          { candidates: [{ content: { parts: [{ text: "half" }], role: "model" } }] },
          { candidates: [{ content: { parts: [{ text: " done" }], role: "model" }, finishReason: "STOP" }] }
        ], 1))
        const error = yield* Effect.flip(collectChunks(yield* stream(chat)))
        assert.instanceOf(error, GatewayError.UpstreamUnreachable)
      }))

    it.effect("maps a blocked prompt in a stream to a content_filter finish", () =>
      Effect.gen(function*() {
        const { fake, stream } = yield* withFake
        fake.enqueue(FakeGemini.events([{ promptFeedback: { blockReason: "SAFETY" } }]))
        const chunks = yield* collectChunks(yield* stream(chat))
        assert.deepStrictEqual(choicesOf(chunks).at(-1), [{ index: 0, delta: {}, finish_reason: "content_filter" }])
      }))
  })
})
