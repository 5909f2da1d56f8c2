import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type ProviderTarget } from "@switchyard/core"
import { Behaviour } from "@switchyard/fake-providers"
import { AzureOpenAIAdapter, UpstreamClient } from "@switchyard/providers"
import { Effect, Stream } from "effect"
import { azureOpenAITarget, fakeAzure, imageMessage, weatherTool } from "./support/AzureUpstream.ts"
import { chatBody, chunksOf, request, summarise } from "./support/Upstream.ts"

const build = (target: ProviderTarget.ProviderTarget) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => AzureOpenAIAdapter.make(client).make(target))

const withFake = Effect.map(fakeAzure(), (fake) => ({ fake, target: azureOpenAITarget(fake) }))

const invalidParam = (target: ProviderTarget.ProviderTarget) =>
  Effect.map(Effect.flip(build(target)), (error) => error.param)

const chatPath = "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21"

layer(UpstreamClient.UpstreamClient.layer())("AzureOpenAIAdapter", (it) => {
  describe("make", () => {
    it.effect("needs a resource_name unless custom_host is given", () =>
      Effect.gen(function*() {
        const target = { provider: "azure-openai", api_key: "k", deployment_id: "d", api_version: "2024-10-21" }
        assert.strictEqual(yield* invalidParam(target), "resource_name")
        assert.strictEqual(yield* invalidParam({ ...target, resource_name: "a/b" }), "resource_name")
        yield* build({ ...target, resource_name: "contoso" })
      }))

    it.effect("needs a deployment_id or deployments, and an api_version for deployment_id", () =>
      Effect.gen(function*() {
        const target = { provider: "azure-openai", api_key: "k", resource_name: "contoso" }
        assert.strictEqual(yield* invalidParam(target), "deployment_id")
        assert.strictEqual(yield* invalidParam({ ...target, deployment_id: "d" }), "api_version")
        yield* build({ ...target, deployments: [{ deployment_id: "d", alias: "a", api_version: "2024-10-21" }] })
      }))

    it.effect("needs an api_key or an Authorization token", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          build({ provider: "azure-openai", resource_name: "contoso", deployment_id: "d", api_version: "v" })
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error.param, "api_key")
      }))
  })

  describe("the request", () => {
    it.effect("posts to the deployment's path with the api-version, the api-key, and no model", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const response = yield* (yield* build(target))(request())
        assert.strictEqual(response.status, 200)
        const sent = fake.requests[0]
        assert.strictEqual(sent?.path, chatPath)
        assert.strictEqual(sent?.headers["api-key"], "azure-key")
        assert.isUndefined(sent?.headers.authorization)
        assert.deepStrictEqual(sent?.body, { messages: chatBody.messages })
      }))

    it.effect("sends an Entra token as a Bearer Authorization instead of the api-key", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        yield* (yield* build({ ...target, api_key: undefined, Authorization: "Bearer entra-token" }))(request())
        assert.strictEqual(fake.requests[0]?.headers.authorization, "Bearer entra-token")
        assert.isUndefined(fake.requests[0]?.headers["api-key"])
      }))

    it.effect("forwards only the incoming headers forward_headers names", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const dispatch = yield* build({ ...target, forward_headers: ["X-Team"] })
        yield* dispatch(request({ headers: { "x-team": "blue", "x-other": "secret" } }))
        assert.strictEqual(fake.requests[0]?.headers["x-team"], "blue")
        assert.isUndefined(fake.requests[0]?.headers["x-other"])
      }))

    it.effect("chooses the deployment whose alias is the request's model", () =>
      Effect.gen(function*() {
        const fake = yield* fakeAzure({ deployments: { "mini-eu": "gpt-4o-mini", "big-eu": "gpt-4o" } })
        const dispatch = yield* build({
          ...azureOpenAITarget(fake),
          deployment_id: undefined,
          api_version: undefined,
          deployments: [
            { deployment_id: "big-eu", alias: "gpt-4o", api_version: "2024-10-21", is_default: true },
            { deployment_id: "mini-eu", alias: "gpt-4o-mini", api_version: "2025-01-01-preview" }
          ]
        })
        yield* dispatch(request())
        yield* dispatch(request({ body: { ...chatBody, model: "something-else" } }))
        assert.strictEqual(
          fake.requests[0]?.path,
          "/openai/deployments/mini-eu/chat/completions?api-version=2025-01-01-preview"
        )
        assert.strictEqual(fake.requests[1]?.path, "/openai/deployments/big-eu/chat/completions?api-version=2024-10-21")
      }))

    it.effect("falls back to deployment_id when no alias matches and none is the default", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const deployments = [{ deployment_id: "other", alias: "other", api_version: "2024-10-21" }]
        yield* (yield* build({ ...target, deployments }))(request())
        assert.strictEqual(fake.requests[0]?.path, chatPath)
      }))

    it.effect("refuses a model no deployment serves when there is no fallback", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const deployments = [{ deployment_id: "other", alias: "other", api_version: "2024-10-21" }]
        const dispatch = yield* build({ ...target, deployment_id: undefined, deployments })
        const error = yield* Effect.flip(dispatch(request()))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.include(error.message, "\"gpt-4o-mini\"")
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.effect("posts embeddings and completions under the deployment", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const dispatch = yield* build(target)
        yield* dispatch(request({ endpoint: "embeddings", body: { model: "e", input: "hi" } }))
        yield* dispatch(request({ endpoint: "completions", body: { model: "c", prompt: "hi" } }))
        assert.strictEqual(fake.requests[0]?.path, "/openai/deployments/gpt-4o-prod/embeddings?api-version=2024-10-21")
        assert.strictEqual(fake.requests[1]?.path, "/openai/deployments/gpt-4o-prod/completions?api-version=2024-10-21")
        assert.deepStrictEqual(fake.requests[0]?.body, { input: "hi" })
      }))

    it.effect("forwards tools, tool_choice, images, stop, n and sampling parameters as they are", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const body = {
          messages: [{ role: "system", content: "be brief" }, imageMessage],
          tools: [weatherTool],
          tool_choice: { type: "function", function: { name: "get_weather" } },
          stop: ["\n\n"],
          n: 2,
          temperature: 0.2,
          top_p: 0.9,
          max_tokens: 64
        }
        yield* (yield* build(target))(request({ body: { ...body, model: "gpt-4o" } }))
        assert.deepStrictEqual(fake.requests[0]?.body, body)
      }))
  })

  describe("the answer", () => {
    it.effect("is Azure's chat completion, with the deployment's model and usage", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const response = yield* (yield* build(target))(request())
        assert.strictEqual(response._tag, "Json")
        if (response._tag !== "Json") return
        assert.deepInclude(response.body(), { object: "chat.completion", model: "gpt-4o-2024-11-20" })
        assert.deepInclude(response.body(), { usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } })
      }))

    it.effect("carries tool calls with JSON-string arguments and finish_reason tool_calls", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const response = yield* (yield* build(target))(request({ body: { ...chatBody, tools: [weatherTool] } }))
        if (response._tag !== "Json") return assert.fail("expected JSON")
        const completion = JSON.stringify(response.body())
        assert.include(completion, "\"finish_reason\":\"tool_calls\"")
        assert.include(completion, "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{}\"}")
      }))

    it.effect("keeps Azure's error status, message and Retry-After", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const body = { error: { code: "429", message: "Rate limit is exceeded. Try again in 2 seconds." } }
        fake.enqueue(Behaviour.json(429, body, { "retry-after": "2" }))
        const error = yield* Effect.flip((yield* build(target))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        const http = GatewayError.toHttp(error)
        assert.strictEqual(http.status, 429)
        assert.strictEqual(http.body.error.message, body.error.message)
        assert.strictEqual(http.headers["retry-after"], "2")
      }))

    it.effect("passes a wrong key's 401 through", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip((yield* build({ ...target, api_key: "wrong" }))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).status, 401)
        assert.include(GatewayError.toHttp(error).body.error.message, "Access denied")
      }))

    it.effect("passes an unknown deployment's 404 through", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const error = yield* Effect.flip((yield* build({ ...target, deployment_id: "gone" }))(request()))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
        assert.strictEqual(GatewayError.toHttp(error).body.error.code, "DeploymentNotFound")
      }))
  })

  describe("a streamed answer", () => {
    it.effect("starts with the role chunk, dropping Azure's prompt-filter chunk", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        const response = yield* (yield* build(target))(request({ stream: true }))
        const chunks = yield* Stream.runCollect(chunksOf(response))
        assert.strictEqual(fake.requests[0]?.headers.accept, "text/event-stream")
        assert.deepInclude(chunks[0], { object: "chat.completion.chunk", model: "gpt-4o-2024-11-20" })
        assert.include(JSON.stringify(chunks[0]), "\"role\":\"assistant\"")
        const summary = chunks.map(summarise)
        assert.strictEqual(summary.map((chunk) => chunk.content).join(""), "echo: hello there")
        assert.strictEqual(summary.at(-1)?.finish, "stop")
      }))

    it.effect("ends with a usage chunk when stream_options.include_usage is set", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const body = { ...chatBody, stream: true, stream_options: { include_usage: true } }
        const response = yield* (yield* build(target))(request({ stream: true, body }))
        const chunks = yield* Stream.runCollect(chunksOf(response))
        assert.deepInclude(chunks.at(-1), {
          choices: [],
          usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 }
        })
      }))

    it.effect("streams tool call deltas with their index", () =>
      Effect.gen(function*() {
        const { target } = yield* withFake
        const body = { ...chatBody, stream: true, tools: [weatherTool] }
        const response = yield* (yield* build(target))(request({ stream: true, body }))
        const chunks = (yield* Stream.runCollect(chunksOf(response))).map((chunk) => JSON.stringify(chunk))
        assert.include(chunks[1], "\"tool_calls\":[{\"index\":0")
        assert.include(chunks[1], "\"name\":\"get_weather\"")
        assert.include(chunks[2], "\"arguments\":\"{}\"")
        assert.include(chunks.at(-1), "\"finish_reason\":\"tool_calls\"")
      }))

    it.effect("ends with UpstreamUnreachable when the stream is cut", () =>
      Effect.gen(function*() {
        const { fake, target } = yield* withFake
        fake.enqueue(Behaviour.cutStream(3))
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
