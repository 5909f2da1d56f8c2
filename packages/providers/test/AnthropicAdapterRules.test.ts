import { assert, describe, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { Behaviour, FakeAnthropic } from "@switchyard/fake-providers"
import { UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { chat, withFakeAnthropic } from "./support/AnthropicUpstream.ts"
import { request } from "./support/Upstream.ts"

const bodyOf = (response: { readonly _tag: string; readonly body?: () => unknown }) => Object(response.body?.())

const thinkingReply = FakeAnthropic.message({
  content: [
    { type: "thinking", thinking: "The user greets me.", signature: "sig-1" },
    { type: "text", text: "Hello!" }
  ],
  stop_reason: "end_turn",
  usage: { input_tokens: 10, output_tokens: 20, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 }
})

layer(UpstreamClient.UpstreamClient.layer())("AnthropicAdapter rules", (it) => {
  describe("parameters Anthropic cannot honour", () => {
    const refused = (extra: Record<string, unknown>) =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const error = yield* Effect.flip(dispatch(request({ body: chat(extra) })))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(fake.requests.length, 0)
        return error
      })

    it.effect("refuses n > 1 with a 400 that says so", () =>
      Effect.gen(function*() {
        const error = yield* refused({ n: 2 })
        assert.strictEqual(error._tag === "InvalidRequest" ? error.param : "", "n")
        assert.match(error.message, /n must be 1/)
      }))

    it.effect("refuses logprobs, a JSON response_format and a temperature above 1", () =>
      Effect.gen(function*() {
        yield* refused({ logprobs: true })
        yield* refused({ response_format: { type: "json_object" } })
        yield* refused({ temperature: 1.5 })
      }))

    it.effect("refuses audio parts", () =>
      Effect.asVoid(refused({
        messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AA", format: "wav" } }] }]
      })))

    it.effect("refuses the embeddings and completions endpoints", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFakeAnthropic()
        for (const endpoint of ["embeddings", "completions"] as const) {
          const error = yield* Effect.flip(dispatch(request({ endpoint, body: { model: "m", input: "x" } })))
          assert.instanceOf(error, GatewayError.InvalidRequest)
        }
      }))

    it.effect("drops n = 1, seed and penalties, which change nothing Anthropic can do", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        yield* dispatch(request({ body: chat({ n: 1, seed: 7, presence_penalty: 0.1, logprobs: false }) }))
        assert.strictEqual(fake.requests.length, 1)
      }))
  })

  describe("provider errors", () => {
    it.effect("keep the provider's status, type and message", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(FakeAnthropic.error(529, "overloaded_error", "Overloaded", { "retry-after": "3" }))
        const error = yield* Effect.flip(dispatch(request({ body: chat() })))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        const http = GatewayError.toHttp(error)
        assert.strictEqual(http.status, 529)
        assert.deepInclude(http.body.error, { type: "overloaded_error", message: "Overloaded" })
        assert.deepStrictEqual(http.headers, { "retry-after": "3" })
      }))

    it.effect("keep the message of a request the provider refused", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFakeAnthropic()
        const error = yield* Effect.flip(
          dispatch(request({ body: chat({ thinking: { type: "enabled", budget_tokens: 100 } }) }))
        )
        const http = GatewayError.toHttp(error)
        assert.strictEqual(http.status, 400)
        assert.deepInclude(http.body.error, {
          type: "invalid_request_error",
          message: "thinking.budget_tokens: Input should be greater than or equal to 1024"
        })
      }))

    it.effect("a body that is not a message is unreachable", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(Behaviour.json(200, { hello: "world" }))
        const error = yield* Effect.flip(dispatch(request({ body: chat() })))
        assert.instanceOf(error, GatewayError.UpstreamUnreachable)
      }))
  })

  describe("thinking and usage", () => {
    it.effect("passes thinking through and raises the default max_tokens above its budget", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        yield* dispatch(request({ body: chat({ thinking: { type: "enabled", budget_tokens: 8000 } }) }))
        assert.deepInclude(Object(fake.requests[0]?.body), {
          max_tokens: 12096,
          thinking: { type: "enabled", budget_tokens: 8000 }
        })
      }))

    it.effect("leaves thinking out of the answer under strict vendor compliance", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(thinkingReply)
        const message = bodyOf(yield* dispatch(request({ body: chat() }))).choices[0].message
        assert.deepStrictEqual(message, { role: "assistant", content: "Hello!", refusal: null })
      }))

    it.effect("returns thinking as content_blocks and reasoning when strict_vendor_compliance is false", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic({ strict_vendor_compliance: false })
        fake.enqueue(thinkingReply)
        const message = bodyOf(yield* dispatch(request({ body: chat() }))).choices[0].message
        assert.deepStrictEqual(message, {
          role: "assistant",
          content: "Hello!",
          refusal: null,
          content_blocks: [
            { type: "thinking", thinking: "The user greets me.", signature: "sig-1" },
            { type: "text", text: "Hello!" }
          ],
          reasoning: "The user greets me."
        })
      }))

    it.effect("sends thinking blocks of an earlier answer back before its text", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        const blocks = [{ type: "thinking", thinking: "hm", signature: "sig-1" }, { type: "text", text: "Hi" }]
        const messages = [
          { role: "user", content: "hi" },
          { role: "assistant", content: "Hi", content_blocks: blocks },
          { role: "user", content: "again" }
        ]
        yield* dispatch(request({ body: chat({ messages }) }))
        assert.deepStrictEqual(Object(fake.requests[0]?.body).messages[1], {
          role: "assistant",
          content: [{ type: "thinking", thinking: "hm", signature: "sig-1" }, { type: "text", text: "Hi" }]
        })
      }))

    it.effect("counts cached input tokens inside prompt_tokens and reports them as cached", () =>
      Effect.gen(function*() {
        const { fake, dispatch } = yield* withFakeAnthropic()
        fake.enqueue(thinkingReply)
        assert.deepStrictEqual(bodyOf(yield* dispatch(request({ body: chat() }))).usage, {
          prompt_tokens: 45,
          completion_tokens: 20,
          total_tokens: 65,
          prompt_tokens_details: { cached_tokens: 30 }
        })
      }))
  })
})
