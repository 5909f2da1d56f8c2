import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type ProviderTarget } from "@switchyard/core"
import { Behaviour } from "@switchyard/fake-providers"
import { AzureAIAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect, Stream } from "effect"
import { azureAITarget, fakeAzure, imageMessage, weatherTool } from "./support/AzureUpstream.ts"
import { chatBody, chunksOf, request, summarise } from "./support/Upstream.ts"

const build = (target: ProviderTarget.ProviderTarget) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => AzureAIAdapter.make(client).make(target))

const withFake = Effect.map(fakeAzure(), (fake) => ({ fake, target: azureAITarget(fake) }))

const managed = (target: ProviderTarget.ProviderTarget): ProviderTarget.ProviderTarget => ({
  ...target,
  cloud3_deployment_type: "managed",
  cloud3_deployment_name: "blue",
  cloud3_api_version: undefined
})

const invalidParam = (target: ProviderTarget.ProviderTarget) =>
  Effect.map(Effect.flip(build(target)), (error) => error.param)

layer(UpstreamClient.UpstreamClient.layer())("AzureAIAdapter", (it) => {
  describe("make", () => {
    it.effect("needs an endpoint name and a region unless custom_host is given", () =>
      Effect.gen(function*() {
        const target = { provider: "azure-ai", api_key: "k", cloud3_region: "eastus2" }
        assert.strictEqual(yield* invalidParam(target), "cloud3_endpoint_name")
        assert.strictEqual(yield* invalidParam({ ...target, cloud3_endpoint_name: "a.b" }), "cloud3_endpoint_name")
        assert.strictEqual(
          yield* invalidParam({ ...target, cloud3_region: undefined, cloud3_endpoint_name: "e" }),
          "cloud3_region"
        )
        yield* build({ ...target, cloud3_endpoint_name: "llama-east" })
      }))

    it.effect("needs a deployment name for a managed deployment", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        assert.strictEqual(
          yield* invalidParam({ ...managed(target), cloud3_deployment_name: undefined }),
          "cloud3_deployment_name"
        )
      }))

    it.effect("needs an api_key or an Authorization token", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        assert.strictEqual(yield* invalidParam({ ...target, api_key: undefined }), "api_key")
      }))
  })

  describe("the request", () => {
    it.effect("posts a serverless call to /chat/completions with the api-version and the key as a Bearer token", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(target))(request())
        const sent = fake.requests[0]
        assert.strictEqual(sent?.path, "/chat/completions?api-version=2024-05-01-preview")
        assert.strictEqual(sent?.headers.authorization, "Bearer azure-key")
        assert.deepStrictEqual(sent?.body, { messages: chatBody.messages })
      }))

    it.effect("posts a managed call to /score with the azureml-model-deployment header", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build(managed(target)))(request())
        assert.strictEqual(fake.requests[0]?.path, "/score")
        assert.strictEqual(fake.requests[0]?.headers["azureml-model-deployment"], "blue")
      }))

    it.effect("uses the target's Authorization token and cloud3_model_name", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const dispatch = yield* build({ ...target, Authorization: "entra-token", cloud3_model_name: "Llama-70B" })
        yield* dispatch(request())
        assert.strictEqual(fake.requests[0]?.headers.authorization, "Bearer entra-token")
        assert.deepInclude(fake.requests[0]?.body, { model: "Llama-70B" })
      }))

    it.effect("forwards tools, images and stop as they are", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const body = { messages: [imageMessage], tools: [weatherTool], tool_choice: "required", stop: ["END"] }
        yield* (yield* build(target))(request({ body }))
        assert.deepStrictEqual(fake.requests[0]?.body, body)
      }))

    it.effect("refuses n > 1 before any call", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const error = yield* Effect.flip((yield* build(target))(request({ body: { ...chatBody, n: 2 } })))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error.param, "n")
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.effect("refuses embeddings and text completions", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip(
          (yield* build(target))(request({ endpoint: "embeddings", body: { input: "hi" } }))
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
      }))
  })

  describe("the answer", () => {
    it.effect("is the endpoint's chat completion with usage", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const response = yield* (yield* build(target))(request())
        if (response._tag !== "Json") return assert.fail("expected JSON")
        assert.deepInclude(response.body(), { object: "chat.completion", model: "Meta-Llama-3.1-70B-Instruct" })
        assert.deepInclude(response.body(), { usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } })
      }))

    it.effect("passes a 401 through with its message", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip((yield* build({ ...target, api_key: "wrong" }))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).status, 401)
        assert.include(GatewayError.toHttp(error).body.error.message, "Access denied")
      }))

    it.effect("keeps the message of a managed endpoint's error that has no error object", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip(
          (yield* build({ ...managed(target), cloud3_deployment_name: "green" }))(request())
        )
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
        assert.include(GatewayError.toHttp(error).body.error.message, "No valid deployments to route to")
      }))
  })

  describe("a streamed answer", () => {
    it.effect("maps to chunks with role first, content deltas and the finish reason", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const response = yield* (yield* build(target))(request({ stream: true }))
        const chunks = yield* Stream.runCollect(chunksOf(response))
        assert.include(JSON.stringify(chunks[0]), "\"role\":\"assistant\"")
        const summary = chunks.map(summarise)
        assert.strictEqual(summary.map((chunk) => chunk.content).join(""), "echo: hello there")
        assert.strictEqual(summary.at(-1)?.finish, "stop")
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
        assert.instanceOf(error, GatewayError.UpstreamUnreachable)
      }))
  })
})
