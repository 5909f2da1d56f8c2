import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import type { FakeVertex } from "@switchyard/fake-providers"
import { GoogleAdapters, UpstreamClient } from "@switchyard/providers"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { collectChunks, completionOf, fakeVertex } from "./support/GoogleFakes.ts"
import { request } from "./support/Upstream.ts"

const targetOf = (fake: FakeVertex.FakeVertex) => ({
  provider: "vertex-ai",
  custom_host: fake.baseUrl,
  cloud2_project_id: fake.project,
  cloud2_region: fake.region,
  cloud2_service_account_json: fake.serviceAccount
})

const build = (target: Parameters<ReturnType<typeof GoogleAdapters.VertexAdapter.make>["make"]>[0]) =>
  Effect.flatMap(UpstreamClient.UpstreamClient, (client) => GoogleAdapters.VertexAdapter.make(client).make(target))

const withFake = (options: FakeVertex.StartOptions = {}) =>
  Effect.gen(function*() {
    const fake = yield* fakeVertex(options)
    const dispatch = yield* build(targetOf(fake))
    const call = (body: GatewayRequest.JsonObject, stream = false) =>
      dispatch(request({ body: stream ? { ...body, stream: true } : body, stream }))
    return { fake, call }
  })

const gemini = { model: "gemini-2.5-pro", messages: [{ role: "user", content: "hello there" }] }
const claude = { model: "claude-sonnet-4@20250514", messages: [{ role: "user", content: "hello there" }] }

layer(UpstreamClient.UpstreamClient.layer())("VertexAdapter", (it) => {
  describe("make", () => {
    it.effect("refuses a target without project, region or service account", () =>
      Effect.gen(function*() {
        const fake = yield* fakeVertex()
        const target = targetOf(fake)
        const noProject = yield* Effect.flip(build({ ...target, cloud2_project_id: undefined }))
        const badRegion = yield* Effect.flip(build({ ...target, cloud2_region: "eu/../x" }))
        const noKey = yield* Effect.flip(build({ ...target, cloud2_service_account_json: { client_email: "a" } }))
        assert.deepStrictEqual([noProject.param, badRegion.param, noKey.param], [
          "cloud2_project_id",
          "cloud2_region",
          "cloud2_service_account_json"
        ])
      }))
  })

  describe("Gemini models", () => {
    it.effect("posts to the project's publisher model with a bearer token from the JWT grant", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        const completion = completionOf(yield* call(gemini))
        assert.strictEqual(fake.tokenRequests(), 1)
        const modelCall = fake.requests[1]
        assert.strictEqual(
          modelCall?.path,
          "/v1/projects/demo-project/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent"
        )
        assert.strictEqual(modelCall?.headers.authorization, "Bearer ya29.fake-1")
        assert.strictEqual(completion.choices[0]?.message.content, "You said: hello there")
      }))

    it.effect("streams with streamGenerateContent?alt=sse", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        const chunks = yield* collectChunks(yield* call(gemini, true))
        assert.isTrue(fake.requests[1]?.path.endsWith("gemini-2.5-pro:streamGenerateContent?alt=sse"))
        assert.strictEqual(chunks.length, 4)
      }))
  })

  describe("access tokens", () => {
    it.effect("reuses the token until shortly before it expires, then fetches a new one", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake({ tokenLifetimeSeconds: 3600 })
        yield* call(gemini)
        yield* TestClock.adjust("58 minutes")
        yield* call(gemini)
        assert.strictEqual(fake.tokenRequests(), 1)
        yield* TestClock.adjust("1 minute")
        yield* call(gemini)
        assert.strictEqual(fake.tokenRequests(), 2)
        assert.strictEqual(fake.requests.at(-1)?.headers.authorization, "Bearer ya29.fake-2")
      }))

    it.effect("fetches one token for concurrent first calls", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        const fiber = yield* Effect.forkChild(
          Effect.all(Array.from({ length: 5 }, () => call(gemini)), { concurrency: 5 })
        )
        yield* Fiber.join(fiber)
        assert.strictEqual(fake.tokenRequests(), 1)
      }))

    it.effect("answers a refused token grant with the token endpoint's status and description", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        fake.failNextToken(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." })
        const error = yield* Effect.flip(call(gemini))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        const http = GatewayError.toHttp(error)
        assert.strictEqual(http.status, 400)
        assert.include(http.body.error.message, "invalid_grant: Invalid JWT Signature.")
        yield* call(gemini)
        assert.strictEqual(fake.tokenRequests(), 2)
      }))
  })

  describe("Claude models", () => {
    it.effect("posts an Anthropic body with the Vertex version and no model to rawPredict", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        const completion = completionOf(yield* call(claude))
        const modelCall = fake.requests[1]
        assert.strictEqual(
          modelCall?.path,
          "/v1/projects/demo-project/locations/europe-west4/publishers/anthropic/models/claude-sonnet-4%4020250514:rawPredict"
        )
        assert.deepInclude(modelCall?.body, { anthropic_version: "vertex-2023-10-16" })
        assert.notProperty(modelCall?.body, "model")
        assert.strictEqual(completion.choices[0]?.message.content, "You said: hello there")
        assert.strictEqual(completion.choices[0]?.finish_reason, "stop")
      }))

    it.effect("streams Claude through streamRawPredict", () =>
      Effect.gen(function*() {
        const { call, fake } = yield* withFake()
        const chunks = yield* collectChunks(yield* call({ ...claude, stream_options: { include_usage: true } }, true))
        assert.isTrue(fake.requests[1]?.path.endsWith(":streamRawPredict"))
        assert.isTrue(chunks.length >= 3)
        assert.isDefined(chunks.at(-1)?.usage)
      }))
  })
})
