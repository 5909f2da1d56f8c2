import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type ProviderTarget } from "@switchyard/core"
import { Behaviour } from "@switchyard/fake-providers"
import { OpenAIAdapter, OpenAICompatibleProviders, UpstreamClient } from "@switchyard/providers"
import { Effect, Stream } from "effect"
import { chatBody, chunksOf, fakeOpenAI, rawText, request, summarise } from "./support/Upstream.ts"

/** The Dispatch the adapter builds for a target, over the pooled upstream client. */
const build = (target: ProviderTarget.ProviderTarget) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => OpenAIAdapter.make(client).make(target))

/** A fake provider and the OpenAI target pointed at it. */
const withFake = Effect.map(fakeOpenAI, (fake) => ({
  fake,
  target: { provider: "openai", api_key: "sk-test", custom_host: fake.baseUrl } satisfies ProviderTarget.ProviderTarget
}))

const expectUnreachable = (error: GatewayError.GatewayError) => {
  assert.instanceOf(error, GatewayError.UpstreamUnreachable)
  return error
}

layer(UpstreamClient.UpstreamClient.layer())("OpenAIAdapter", (it) => {
  describe("make", () => {
    it.effect("serves every OpenAI-compatible provider name", () =>
      Effect.gen(function*() {
        const client = yield* UpstreamClient.UpstreamClient
        assert.deepStrictEqual(
          OpenAIAdapter.make(client).names,
          Object.keys(OpenAICompatibleProviders.openAICompatibleProviders)
        )
      }))

    it.effect("rejects a provider that is not OpenAI-format", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "anthropic", api_key: "sk" }))
        assert.strictEqual(error.param, "provider")
        assert.strictEqual(error.message, "provider: \"anthropic\" is not an OpenAI-format provider")
      }))

    it.effect("rejects a provider that needs an api_key when it has none", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "openai" }))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error.param, "api_key")
        assert.strictEqual(error.message, "api_key: provider \"openai\" needs an api_key")
      }))

    it.effect("builds a local provider without an api_key", () => Effect.asVoid(build({ provider: "ollama" })))

    it.effect("rejects a custom_host that is not a URL", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "openai", api_key: "sk", custom_host: "not a url" }))
        assert.strictEqual(error.param, "custom_host")
        assert.strictEqual(error.message, "custom_host: must be an http or https URL (got \"not a url\")")
      }))

    it.effect("rejects a custom_host that is not http or https", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          build({ provider: "openai", api_key: "sk", custom_host: "ftp://127.0.0.1/v1" })
        )
        assert.strictEqual(error.param, "custom_host")
      }))
  })

  describe("a JSON answer", () => {
    it.effect("keeps the provider's bytes as they came", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const text = "{ \"id\" : \"chatcmpl-1\",\n  \"object\": \"chat.completion\", \"choices\": [] }"
        fake.enqueue(Behaviour.json(200, text))
        const response = yield* (yield* build(target))(request())
        assert.strictEqual(response._tag, "Json")
        assert.strictEqual(response.status, 200)
        assert.strictEqual(rawText(response), text)
      }))

    it.effect("parses the kept bytes when the body is read", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const response = yield* (yield* build(target))(request())
        assert.strictEqual(response._tag, "Json")
        if (response._tag !== "Json") return
        assert.deepInclude(response.body(), { object: "chat.completion", model: "gpt-4o-mini" })
      }))

    it.effect("posts the body to the endpoint's path under the base URL", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(target))(request())
        assert.strictEqual(fake.requests.length, 1)
        assert.strictEqual(fake.requests[0]?.method, "POST")
        assert.strictEqual(fake.requests[0]?.path, "/v1/chat/completions")
        assert.deepStrictEqual(fake.requests[0]?.body, chatBody)
      }))

    it.effect("posts embeddings to /embeddings", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(target))(request({ endpoint: "embeddings", body: { model: "e", input: "hi" } }))
        assert.strictEqual(fake.requests[0]?.path, "/v1/embeddings")
      }))

    it.effect("drops trailing slashes from custom_host", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build({ ...target, custom_host: `${fake.baseUrl}//` }))(request())
        assert.strictEqual(fake.requests[0]?.path, "/v1/chat/completions")
      }))
  })

  describe("upstream headers", () => {
    it.effect("sends the api_key as a Bearer token and the body as JSON", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(target))(request())
        assert.strictEqual(fake.requests[0]?.headers.authorization, "Bearer sk-test")
        assert.strictEqual(fake.requests[0]?.headers["content-type"], "application/json")
      }))

    it.effect("sends vendor_organization and vendor_project as OpenAI's headers", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build({ ...target, vendor_organization: "org-1", vendor_project: "proj-1" }))(request())
        assert.strictEqual(fake.requests[0]?.headers["openai-organization"], "org-1")
        assert.strictEqual(fake.requests[0]?.headers["openai-project"], "proj-1")
      }))

    it.effect("sends no organization, project or authorization header the target does not set", () =>
      Effect.gen(function*() {
        const { fake } = yield* withFake
        yield* (yield* build({ provider: "ollama", custom_host: fake.baseUrl }))(request())
        const headers = fake.requests[0]?.headers ?? {}
        for (const name of ["authorization", "openai-organization", "openai-project"]) {
          assert.isFalse(Object.hasOwn(headers, name), name)
        }
      }))

    it.effect("forwards only the incoming headers forward_headers names", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const dispatch = yield* build({ ...target, forward_headers: ["X-Team", "x-missing"] })
        yield* dispatch(request({ headers: { "x-team": "blue", "x-other": "secret", "x-gateway-api-key": "gw" } }))
        const headers = fake.requests[0]?.headers ?? {}
        assert.strictEqual(headers["x-team"], "blue")
        for (const name of ["x-other", "x-gateway-api-key", "x-missing"]) {
          assert.isFalse(Object.hasOwn(headers, name), name)
        }
      }))

    it.effect("forwards no incoming header without forward_headers", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(target))(request({ headers: { "x-team": "blue" } }))
        assert.isFalse(Object.hasOwn(fake.requests[0]?.headers ?? {}, "x-team"))
      }))
  })

  describe("a streamed answer", () => {
    it.effect("is parsed into chunks that end at [DONE]", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const response = yield* (yield* build(target))(request({ stream: true }))
        const chunks = (yield* Stream.runCollect(chunksOf(response))).map(summarise)
        assert.strictEqual(fake.requests[0]?.headers.accept, "text/event-stream")
        assert.strictEqual(chunks.length, 5)
        assert.isTrue(chunks.every((chunk) => chunk.object === "chat.completion.chunk"))
        assert.strictEqual(chunks.map((chunk) => chunk.content).join(""), "echo: hello there")
        assert.strictEqual(chunks.at(-1)?.finish, "stop")
      }))

    it.effect("ends with UpstreamUnreachable when the stream is cut", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.cutStream(2))
        const response = yield* (yield* build(target))(request({ stream: true }))
        const received: Array<unknown> = []
        const error = yield* Effect.flip(
          Stream.runForEach(chunksOf(response), (chunk) => Effect.sync(() => received.push(chunk)))
        )
        assert.strictEqual(received.length, 2)
        assert.strictEqual(expectUnreachable(error).message, "the stream was cut")
      }))

    it.effect("ends with UpstreamUnreachable when the stream closes before [DONE]", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const chunk = JSON.stringify({ object: "chat.completion.chunk", choices: [] })
        fake.enqueue(Behaviour.json(200, `data: ${chunk}\n\n`, { "content-type": "text/event-stream" }))
        const response = yield* (yield* build(target))(request({ stream: true }))
        const error = yield* Effect.flip(Stream.runDrain(chunksOf(response)))
        assert.strictEqual(expectUnreachable(error).message, "the stream was cut")
      }))

    it.effect("ends with UpstreamUnreachable on a chunk that is not a JSON object", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.json(200, "data: [1, 2]\n\ndata: [DONE]\n\n", { "content-type": "text/event-stream" }))
        const response = yield* (yield* build(target))(request({ stream: true }))
        const error = yield* Effect.flip(Stream.runDrain(chunksOf(response)))
        assert.strictEqual(expectUnreachable(error).message, "the stream carried a chunk that is not a JSON object")
      }))

    it.effect("fails with UpstreamUnreachable when a streamed request is answered with JSON", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.json(200, { object: "chat.completion", choices: [] }))
        const error = yield* Effect.flip((yield* build(target))(request({ stream: true })))
        assert.strictEqual(expectUnreachable(error).message, "answered a streamed request with application/json")
      }))
  })

  describe("failures", () => {
    it.effect("turns a non-2xx answer into UpstreamStatus with its parsed body and headers", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const body = { error: { message: "slow down", type: "requests", param: null, code: "rate_limit_exceeded" } }
        fake.enqueue(Behaviour.json(429, body, { "retry-after": "7" }))
        const error = yield* Effect.flip((yield* build(target))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.provider, "openai")
        assert.strictEqual(error.status, 429)
        assert.deepStrictEqual(error.body, body)
        assert.strictEqual(error.headers["retry-after"], "7")
      }))

    it.effect("keeps a non-2xx answer that is not JSON as text", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.json(503, "<html>overloaded</html>"))
        const error = yield* Effect.flip((yield* build(target))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.body, "<html>overloaded</html>")
      }))

    it.effect("turns a non-2xx answer to a streamed request into UpstreamStatus", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.json(400, { error: { message: "bad model", param: "model" } }))
        const error = yield* Effect.flip((yield* build(target))(request({ stream: true })))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.status, 400)
      }))

    it.effect("fails with UpstreamUnreachable when the provider resets the connection", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.resetConnection())
        const error = yield* Effect.flip((yield* build(target))(request()))
        assert.strictEqual(expectUnreachable(error).provider, "openai")
      }))

    it.effect("fails with UpstreamUnreachable when nothing listens at the provider's address", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip((yield* build({ ...target, custom_host: "http://127.0.0.1:9/v1" }))(request()))
        expectUnreachable(error)
      }))

    it.effect("rejects an endpoint the provider does not serve without calling it", () =>
      Effect.gen(function*() {
        const { fake } = yield* withFake
        const dispatch = yield* build({ provider: "groq", api_key: "sk", custom_host: fake.baseUrl })
        const error = yield* Effect.flip(
          dispatch(request({ endpoint: "completions", body: { model: "m", prompt: "hi" } }))
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error.message, "provider \"groq\" does not serve /v1/completions")
        assert.strictEqual(error.param, "provider")
        assert.strictEqual(fake.requests.length, 0)
      }))
  })
})

layer(UpstreamClient.UpstreamClient.layer({ connections: 1 }), { excludeTestServices: true })(
  "OpenAIAdapter connection reuse",
  (it) => {
    it.effect("frees the connection of a JSON answer to a streamed request", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const dispatch = yield* build(target)
        fake.enqueue(Behaviour.json(200, { big: "x".repeat(200_000) }))
        yield* Effect.flip(dispatch(request({ stream: true })))
        // one connection in the pool: the next call only gets it if the first body was dropped
        const next = yield* dispatch(request()).pipe(Effect.timeout("5 seconds"))
        assert.strictEqual(next.status, 200)
      }))
  }
)
