import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type GatewayRequest, type ProviderTarget } from "@switchyard/core"
import { Behaviour } from "@switchyard/fake-providers"
import { GoogleAdapters, UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { completionOf, fakeGemini, recordedBody } from "./support/GoogleFakes.ts"
import { request } from "./support/Upstream.ts"

const build = (target: ProviderTarget.ProviderTarget) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => GoogleAdapters.GeminiAdapter.make(client).make(target))

const withFake = Effect.gen(function*() {
  const fake = yield* fakeGemini
  const dispatch = yield* build({ provider: "google", api_key: "gemini-key", custom_host: fake.baseUrl })
  const call = (body: GatewayRequest.JsonObject) => dispatch(request({ body }))
  return { fake, dispatch, call }
})

const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      additionalProperties: false
    }
  }
}

layer(UpstreamClient.UpstreamClient.layer())("GeminiAdapter", (it) => {
  describe("make", () => {
    it.effect("refuses a target without an api_key", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "google" }))
        assert.strictEqual(error.param, "api_key")
      }))
  })

  describe("requests", () => {
    it.effect("posts generateContent with the key header, system instruction and generation config", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        yield* call({
          model: "gemini-2.5-flash",
          messages: [
            { role: "system", content: "be brief" },
            { role: "developer", content: [{ type: "text", text: "use French" }] },
            { role: "user", content: "hello there" }
          ],
          temperature: 0.3,
          top_p: 0.9,
          max_tokens: 100,
          stop: "END",
          seed: 7,
          user: "someone"
        })
        const recorded = fake.requests[0]
        assert.strictEqual(recorded?.path, "/v1beta/models/gemini-2.5-flash:generateContent")
        assert.strictEqual(recorded?.headers["x-goog-api-key"], "gemini-key")
        assert.deepStrictEqual(recordedBody(fake.requests), {
          contents: [{ role: "user", parts: [{ text: "hello there" }] }],
          systemInstruction: { parts: [{ text: "be brief" }, { text: "use French" }] },
          generationConfig: { temperature: 0.3, topP: 0.9, seed: 7, maxOutputTokens: 100, stopSequences: ["END"] }
        })
      }))

    it.effect("sends tools as function declarations and a named tool_choice as ANY with its name", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        yield* call({
          model: "gemini-2.5-flash",
          messages: [{ role: "user", content: "weather in Paris?" }],
          tools: [weather],
          tool_choice: { type: "function", function: { name: "get_weather" } }
        })
        assert.deepInclude(recordedBody(fake.requests), {
          tools: [{
            functionDeclarations: [{
              name: "get_weather",
              description: "Weather of a city",
              parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
            }]
          }],
          toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } }
        })
      }))

    it.effect("sends tool calls and tool results as functionCall and functionResponse parts", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        yield* call({
          model: "gemini-2.5-flash",
          tools: [weather],
          tool_choice: "none",
          messages: [
            { role: "user", content: "weather in Paris?" },
            {
              role: "assistant",
              content: null,
              tool_calls: [{
                id: "call_1",
                type: "function",
                function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
              }]
            },
            { role: "tool", tool_call_id: "call_1", content: "sunny" }
          ]
        })
        assert.deepInclude(recordedBody(fake.requests), {
          contents: [
            { role: "user", parts: [{ text: "weather in Paris?" }] },
            { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
            { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { content: "sunny" } } }] }
          ],
          toolConfig: { functionCallingConfig: { mode: "NONE" } }
        })
      }))

    it.effect("sends data: images inline and http images as file references", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        yield* call({
          model: "gemini-2.5-flash",
          messages: [{
            role: "user",
            content: [
              { type: "text", text: "compare" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
              { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } }
            ]
          }]
        })
        assert.deepInclude(recordedBody(fake.requests), {
          contents: [{
            role: "user",
            parts: [
              { text: "compare" },
              { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
              { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/cat.jpg" } }
            ]
          }]
        })
      }))

    it.effect("refuses n above 8, which Gemini cannot answer, without calling it", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        const error = yield* Effect.flip(
          call({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }], n: 9 })
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error._tag === "InvalidRequest" ? error.param : "", "n")
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.effect("refuses embeddings", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFake
        const error = yield* Effect.flip(
          dispatch(request({ endpoint: "embeddings", body: { model: "m", input: "x" } }))
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
      }))
  })

  describe("answers", () => {
    it.effect("maps text, finish reason, model and usage", () =>
      Effect.gen(function*() {
        const { call } = yield* withFake
        const completion = completionOf(
          yield* call({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hello there" }] })
        )
        assert.strictEqual(completion.model, "gemini-2.5-flash")
        assert.deepStrictEqual(completion.choices, [{
          index: 0,
          message: { role: "assistant", content: "You said: hello there" },
          finish_reason: "stop"
        }])
        assert.deepStrictEqual(completion.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 })
      }))

    it.effect("answers n choices as candidateCount candidates", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        const completion = completionOf(
          yield* call({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "hi" }], n: 2 })
        )
        assert.deepInclude(recordedBody(fake.requests), { generationConfig: { candidateCount: 2 } })
        assert.deepStrictEqual(completion.choices.map((choice) => choice.index), [0, 1])
      }))

    it.effect("maps a function call to tool_calls with JSON-string arguments", () =>
      Effect.gen(function*() {
        const { call } = yield* withFake
        const completion = completionOf(
          yield* call({
            model: "gemini-2.5-flash",
            messages: [{ role: "user", content: "Paris" }],
            tools: [weather],
            tool_choice: "required"
          })
        )
        const choice = completion.choices[0]
        assert.strictEqual(choice?.finish_reason, "tool_calls")
        assert.strictEqual(choice?.message.content, null)
        assert.strictEqual(choice?.message.tool_calls?.[0]?.function.name, "get_weather")
        assert.strictEqual(choice?.message.tool_calls?.[0]?.function.arguments, "{\"query\":\"Paris\"}")
      }))

    it.effect("maps MAX_TOKENS to length, SAFETY to content_filter, and keeps cached and thought tokens", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        const candidate = (finishReason: string) => ({
          content: { parts: [{ text: "cut" }], role: "model" },
          finishReason
        })
        fake.enqueue(Behaviour.json(200, {
          candidates: [candidate("MAX_TOKENS")],
          usageMetadata: {
            promptTokenCount: 10,
            candidatesTokenCount: 5,
            cachedContentTokenCount: 4,
            thoughtsTokenCount: 3,
            totalTokenCount: 18
          }
        }))
        fake.enqueue(Behaviour.json(200, { candidates: [candidate("SAFETY")] }))
        const body = { model: "gemini-2.5-flash", messages: [{ role: "user", content: "go" }] }
        const long = completionOf(yield* call(body))
        const unsafe = completionOf(yield* call(body))
        assert.strictEqual(long.choices[0]?.finish_reason, "length")
        assert.deepStrictEqual(long.usage, {
          prompt_tokens: 10,
          completion_tokens: 8,
          total_tokens: 18,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 3 }
        })
        assert.strictEqual(unsafe.choices[0]?.finish_reason, "content_filter")
      }))

    it.effect("answers a prompt blocked for safety with content_filter and empty content", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        fake.enqueue(Behaviour.json(200, {
          promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
          usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 }
        }))
        const completion = completionOf(
          yield* call({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "x" }] })
        )
        assert.deepStrictEqual(completion.choices, [{
          index: 0,
          message: { role: "assistant", content: "" },
          finish_reason: "content_filter"
        }])
      }))

    it.effect("keeps Gemini's error status and message", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake
        const body = { error: { code: 429, message: "Resource has been exhausted", status: "RESOURCE_EXHAUSTED" } }
        fake.enqueue(Behaviour.json(429, body))
        const error = yield* Effect.flip(
          call({ model: "gemini-2.5-flash", messages: [{ role: "user", content: "x" }] })
        )
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).status, 429)
        assert.strictEqual(GatewayError.toHttp(error).body.error.message, "Resource has been exhausted")
      }))

    it.effect("passes on the 400 of a wrong API key", () =>
      Effect.gen(function*() {
        const fake = yield* fakeGemini
        const dispatch = yield* build({ provider: "google", api_key: "wrong", custom_host: fake.baseUrl })
        const error = yield* Effect.flip(
          dispatch(request({ body: { model: "gemini-2.5-flash", messages: [{ role: "user", content: "x" }] } }))
        )
        assert.strictEqual(GatewayError.toHttp(error).status, 400)
        assert.strictEqual(
          GatewayError.toHttp(error).body.error.message,
          "API key not valid. Please pass a valid API key."
        )
      }))
  })
})
