import { assert, describe, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { FakeBedrock } from "@switchyard/fake-providers"
import { UpstreamClient } from "@switchyard/providers"
import { Effect, Stream } from "effect"
import { chat, modelId, withFake } from "./support/BedrockFake.ts"
import { chunksOf, request, summarise } from "./support/Upstream.ts"

const streamed = (extra: Readonly<Record<string, unknown>> = {}) =>
  request({ stream: true, body: chat({ stream: true, ...extra }) })

const toolFrames = [
  FakeBedrock.event("messageStart", { role: "assistant" }),
  FakeBedrock.event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Checking." } }),
  FakeBedrock.event("contentBlockStop", { contentBlockIndex: 0 }),
  FakeBedrock.event("contentBlockStart", {
    contentBlockIndex: 1,
    start: { toolUse: { toolUseId: "tooluse_a", name: "get_weather" } }
  }),
  FakeBedrock.event("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: "{\"city\":" } } }),
  FakeBedrock.event("contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: "\"Oslo\"}" } } }),
  FakeBedrock.event("contentBlockStop", { contentBlockIndex: 1 }),
  FakeBedrock.event("messageStop", { stopReason: "tool_use" }),
  FakeBedrock.event("metadata", {
    usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 },
    metrics: { latencyMs: 5 }
  })
]

layer(UpstreamClient.UpstreamClient.layer())("BedrockAdapter streams", (it) => {
  describe("ConverseStream", () => {
    it.effect("posts to converse-stream and maps events to chunks: role, content, finish", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(streamed())))
        assert.strictEqual(fake.requests[0]?.operation, "converse-stream")
        assert.strictEqual(fake.requests[0]?.headers.accept, "application/vnd.amazon.eventstream")
        assert.deepStrictEqual(chunks.map(summarise), [
          { object: "chat.completion.chunk", content: "", finish: null },
          { object: "chat.completion.chunk", content: "Hello", finish: null },
          { object: "chat.completion.chunk", content: " from the", finish: null },
          { object: "chat.completion.chunk", content: " fake Bedrock.", finish: null },
          { object: "chat.completion.chunk", content: "", finish: "stop" }
        ])
        assert.deepNestedInclude(chunks[0], { "choices[0].delta": { role: "assistant", content: "" }, model: modelId })
      }))

    it.effect("adds a usage chunk when stream_options.include_usage is set", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFake()
        const chunks = yield* Stream.runCollect(
          chunksOf(yield* dispatch(streamed({ stream_options: { include_usage: true } })))
        )
        assert.deepInclude(chunks.at(-1), {
          choices: [],
          usage: {
            prompt_tokens: 12,
            completion_tokens: 5,
            total_tokens: 17,
            prompt_tokens_details: { cached_tokens: 0 }
          }
        })
      }))

    it.effect("decodes frames that span network chunks", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(FakeBedrock.frames(FakeBedrock.textFrames(["split ", "across ", "writes"]), { bytesPerWrite: 7 }))
        const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(streamed())))
        assert.strictEqual(chunks.map((chunk) => summarise(chunk).content).join(""), "split across writes")
      }))

    it.effect("streams tool calls as indexed deltas and finishes with tool_calls", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(FakeBedrock.frames(toolFrames))
        const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(streamed())))
        const deltas = chunks.slice(2, 5).map((chunk) => chunk.choices)
        assert.deepStrictEqual(deltas, [
          [{
            index: 0,
            delta: {
              tool_calls: [{
                index: 0,
                id: "tooluse_a",
                type: "function",
                function: { name: "get_weather", arguments: "" }
              }]
            },
            logprobs: null,
            finish_reason: null
          }],
          [{
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: "{\"city\":" } }] },
            logprobs: null,
            finish_reason: null
          }],
          [{
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: "\"Oslo\"}" } }] },
            logprobs: null,
            finish_reason: null
          }]
        ])
        assert.strictEqual(summarise(chunks.at(-1)).finish, "tool_calls")
      }))

    it.effect("ends a stream cut mid-way with UpstreamUnreachable, after the chunks that arrived", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(FakeBedrock.frames(FakeBedrock.textFrames(["one", " two", " three"]), { cutAfter: 2 }))
        const seen: Array<string> = []
        const error = yield* Effect.flip(
          Stream.runForEach(
            chunksOf(yield* dispatch(streamed())),
            (chunk) => Effect.sync(() => seen.push(summarise(chunk).content))
          )
        )
        assert.instanceOf(error, GatewayError.UpstreamUnreachable)
        assert.deepStrictEqual(seen, ["", "one"])
      }))

    it.effect("turns an exception event into UpstreamStatus with its status and message", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(FakeBedrock.frames([
          FakeBedrock.event("messageStart", { role: "assistant" }),
          FakeBedrock.exception("throttlingException", "Too many tokens, please wait before trying again.")
        ]))
        const error = yield* Effect.flip(Stream.runDrain(chunksOf(yield* dispatch(streamed()))))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.status, 429)
        assert.deepInclude(GatewayError.toHttp(error).body.error, {
          message: "Too many tokens, please wait before trying again.",
          type: "throttlingException"
        })
      }))

    it.effect("keeps an HTTP error of a streamed request as UpstreamStatus", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(FakeBedrock.error(400, "ValidationException", "The provided model identifier is invalid."))
        const error = yield* Effect.flip(dispatch(streamed()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).body.error.message, "The provided model identifier is invalid.")
      }))
  })
})
