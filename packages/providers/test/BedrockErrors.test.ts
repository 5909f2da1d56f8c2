import { assert, describe, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { FakeBedrock } from "@switchyard/fake-providers"
import { UpstreamClient } from "@switchyard/providers"
import { Effect } from "effect"
import { build, chat, credentials, fakeBedrock, modelId, targetFor, withFake } from "./support/BedrockFake.ts"
import { request } from "./support/Upstream.ts"

layer(UpstreamClient.UpstreamClient.layer())("BedrockAdapter refusals and errors", (it) => {
  describe("make", () => {
    it.effect("refuses a target without AWS credentials", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({ provider: "bedrock", cloud1_region: "us-east-1" }))
        assert.strictEqual(error.param, "cloud1_access_key_id")
      }))

    it.effect("refuses a target without a region", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(build({
          provider: "bedrock",
          cloud1_access_key_id: credentials.accessKeyId,
          cloud1_secret_access_key: credentials.secretAccessKey
        }))
        assert.strictEqual(error.param, "cloud1_region")
      }))
  })

  describe("what Converse cannot honour", () => {
    it.effect("refuses n > 1, logprobs and JSON response formats with a 400", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        const params: Array<unknown> = []
        for (const extra of [{ n: 2 }, { logprobs: true }, { response_format: { type: "json_object" } }]) {
          const error = yield* Effect.flip(dispatch(request({ body: chat(extra) })))
          assert.instanceOf(error, GatewayError.InvalidRequest)
          params.push(error.param)
        }
        assert.deepStrictEqual(params, ["n", "logprobs", "response_format"])
        assert.strictEqual(fake.requests.length, 0)
      }))

    it.effect("refuses the completions and embeddings endpoints", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* withFake()
        const error = yield* Effect.flip(
          dispatch(request({ endpoint: "embeddings", body: { model: modelId, input: "x" } }))
        )
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.strictEqual(error.message, "provider \"bedrock\" does not serve /v1/embeddings")
      }))
  })

  describe("errors", () => {
    it.effect("keeps Bedrock's status, message and error type", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake()
        fake.enqueue(
          FakeBedrock.error(429, "ThrottlingException", "Too many requests, please wait before trying again.")
        )
        const error = yield* Effect.flip(dispatch(request({ body: chat() })))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.status, 429)
        assert.deepStrictEqual(GatewayError.toHttp(error).body.error, {
          message: "Too many requests, please wait before trying again.",
          type: "ThrottlingException",
          param: null,
          code: null
        })
      }))

    it.effect("surfaces the fake's 403 when the signature is made with a wrong secret", () =>
      Effect.gen(function*() {
        const fake = yield* fakeBedrock()
        const dispatch = yield* build({ ...targetFor(fake), cloud1_secret_access_key: "not-the-secret" })
        const error = yield* Effect.flip(dispatch(request({ body: chat() })))
        assert.instanceOf(error, GatewayError.UpstreamStatus)
        assert.strictEqual(error.status, 403)
        const body = GatewayError.toHttp(error).body.error
        assert.strictEqual(body.type, "InvalidSignatureException")
        assert.include(body.message, "The request signature we calculated does not match")
      }))

    it.effect("signs the session token of temporary credentials", () =>
      Effect.gen(function*() {
        const { dispatch, fake } = yield* withFake({ sessionToken: "FwoGZXIvYXdzEXAMPLE" })
        yield* dispatch(request({ body: chat() }))
        assert.strictEqual(fake.requests[0]?.headers["x-amz-security-token"], "FwoGZXIvYXdzEXAMPLE")
        assert.include(fake.requests[0]?.headers.authorization ?? "", "x-amz-security-token")
      }))
  })
})
