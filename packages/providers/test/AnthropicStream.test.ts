import { assert, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { Behaviour, FakeAnthropic } from "@switchyard/fake-providers"
import { UpstreamClient } from "@switchyard/providers"
import { Effect, Stream } from "effect"
import { chat, weatherTool, withFakeAnthropic } from "./support/AnthropicUpstream.ts"
import { chunksOf, request } from "./support/Upstream.ts"

const streamed = (extra: Record<string, unknown> = {}) =>
  request({ body: chat({ stream: true, ...extra }), stream: true })

/** Each chunk's delta (or usage) and finish reason, without the identity fields. */
const deltas = (chunks: ReadonlyArray<Record<string, unknown>>) =>
  chunks.map((chunk) => {
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    return choice === undefined ? { usage: chunk.usage } : { delta: choice.delta, finish: choice.finish_reason }
  })

layer(UpstreamClient.UpstreamClient.layer())("AnthropicAdapter streams", (it) => {
  it.effect("maps text events to a role chunk, content deltas and a final chunk", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(streamed())))
      assert.strictEqual(Object(fake.requests[0]?.body).stream, true)
      assert.strictEqual(fake.requests[0]?.headers.accept, "text/event-stream")
      assert.deepInclude(chunks[0], { id: "msg_fake_1", object: "chat.completion.chunk", model: "claude-sonnet-4-5" })
      assert.deepStrictEqual(deltas(chunks), [
        { delta: { role: "assistant", content: "" }, finish: null },
        { delta: { content: "echo:" }, finish: null },
        { delta: { content: " hello" }, finish: null },
        { delta: { content: " there" }, finish: null },
        { delta: {}, finish: "stop" }
      ])
    }))

  it.effect("adds a usage chunk when stream_options.include_usage is set, and never sends stream_options", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      const chunks = yield* Stream.runCollect(
        chunksOf(yield* dispatch(streamed({ stream_options: { include_usage: true } })))
      )
      assert.strictEqual(Object(fake.requests[0]?.body).stream_options, undefined)
      assert.deepStrictEqual(deltas(chunks).at(-1), {
        usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5, prompt_tokens_details: { cached_tokens: 0 } }
      })
    }))

  it.effect("streams tool calls: id and name first, then argument fragments, indexed by ordinal", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      fake.enqueue(FakeAnthropic.message({
        content: [
          { type: "text", text: "Checking." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_weather", input: { city: "Rome" } }
        ],
        stop_reason: "tool_use"
      }))
      const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(streamed({ tools: [weatherTool] }))))
      const calls = deltas(chunks).flatMap((entry) => ("delta" in entry && entry.delta.tool_calls) || [])
      assert.deepStrictEqual(calls, [
        { index: 0, id: "toolu_a", type: "function", function: { name: "get_weather", arguments: "" } },
        { index: 0, function: { arguments: "{\"city\":" } },
        { index: 0, function: { arguments: "\"Paris\"}" } },
        { index: 1, id: "toolu_b", type: "function", function: { name: "get_weather", arguments: "" } },
        { index: 1, function: { arguments: "{\"city\":" } },
        { index: 1, function: { arguments: "\"Rome\"}" } }
      ])
      assert.deepStrictEqual(deltas(chunks).at(-1), { delta: {}, finish: "tool_calls" })
    }))

  it.effect("leaves thinking out under strict vendor compliance", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* withFakeAnthropic()
      const body = streamed({ thinking: { type: "enabled", budget_tokens: 1024 } })
      const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(body)))
      assert.isFalse(JSON.stringify(chunks).includes("Thinking about"))
    }))

  it.effect("streams thinking as reasoning and content_blocks deltas when strict_vendor_compliance is false", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* withFakeAnthropic({ strict_vendor_compliance: false })
      const body = streamed({
        messages: [{ role: "user", content: "hi" }],
        thinking: { type: "enabled", budget_tokens: 1024 }
      })
      const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(body)))
      assert.deepStrictEqual(deltas(chunks).slice(1, 5).map((entry) => "delta" in entry ? entry.delta : entry), [
        { reasoning: "Thinking", content_blocks: [{ index: 0, delta: { thinking: "Thinking" } }] },
        { reasoning: " about:", content_blocks: [{ index: 0, delta: { thinking: " about:" } }] },
        { reasoning: " hi", content_blocks: [{ index: 0, delta: { thinking: " hi" } }] },
        { content_blocks: [{ index: 0, delta: { signature: "sig-fake-1" } }] }
      ])
    }))

  it.effect("names the stop sequence that ended the answer on the last choice when strict_vendor_compliance is false", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* withFakeAnthropic({ strict_vendor_compliance: false })
      const body = streamed({ messages: [{ role: "user", content: "one two ### three" }], stop: ["###"] })
      const chunks = yield* Stream.runCollect(chunksOf(yield* dispatch(body)))
      const last = chunks.at(-1)
      const choice = Array.isArray(last?.choices) ? last.choices[0] : undefined
      assert.deepInclude(choice, { finish_reason: "stop", stop_sequence: "###" })
    }))

  it.effect("ends a stream cut mid-way with UpstreamUnreachable", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      fake.enqueue(Behaviour.cutStream(4))
      const response = yield* dispatch(streamed())
      const seen: Array<unknown> = []
      const error = yield* Effect.flip(
        Stream.runForEach(chunksOf(response), (chunk) => Effect.sync(() => seen.push(chunk)))
      )
      assert.instanceOf(error, GatewayError.UpstreamUnreachable)
      assert.strictEqual(seen.length, 2)
    }))

  it.effect("fails with the provider's error type and message when an error event arrives", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      fake.enqueue(FakeAnthropic.streamError(3, "overloaded_error", "Overloaded"))
      const error = yield* Effect.flip(Stream.runCollect(chunksOf(yield* dispatch(streamed()))))
      const http = GatewayError.toHttp(error)
      assert.strictEqual(http.status, 529)
      assert.deepInclude(http.body.error, { type: "overloaded_error", message: "Overloaded" })
    }))

  it.effect("fails with the provider's status when the stream is refused up front", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      fake.enqueue(FakeAnthropic.error(429, "rate_limit_error", "Slow down"))
      const error = yield* Effect.flip(dispatch(streamed()))
      assert.instanceOf(error, GatewayError.UpstreamStatus)
      assert.strictEqual(error._tag === "UpstreamStatus" ? error.status : 0, 429)
    }))

  it.effect("refuses a JSON answer to a streamed request", () =>
    Effect.gen(function*() {
      const { fake, dispatch } = yield* withFakeAnthropic()
      fake.enqueue(Behaviour.json(200, { ok: true }))
      assert.instanceOf(yield* Effect.flip(dispatch(streamed())), GatewayError.UpstreamUnreachable)
    }))
})
