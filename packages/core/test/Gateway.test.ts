import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  Gateway,
  GatewayError,
  type GatewayRequest,
  ProviderRegistry,
  ProviderSelection,
  Stage,
  Strategy
} from "@switchyard/core"
import { Effect, Layer, Option } from "effect"
import { bodyOf, chatBody, context, recordingAdapter } from "./support/Fakes.ts"

const viaProvider = { "x-gateway-provider": "fake", authorization: "Bearer sk-fake" }

const gatewayLayer = (
  adapter: ProviderRegistry.ProviderAdapter,
  selectors: Layer.Layer<ProviderSelection.Selectors> = ProviderSelection.Selectors.layerHeaders
) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide(selectors),
    Layer.provide(ConfigCompiler.ConfigCompiler.layer()),
    Layer.provide([
      ProviderRegistry.ProviderRegistry.layer([adapter]),
      Strategy.Strategies.layerSingle,
      Stage.Stages.layer
    ])
  )

const handle = (body: GatewayRequest.JsonObject, headers: Readonly<Record<string, string>> = viaProvider) =>
  Effect.flatMap(
    Gateway.Gateway,
    (gateway) => gateway.handle({ endpoint: "chat.completions", body, context: context(headers) })
  )

describe("Gateway.validate", () => {
  it.effect("accepts a valid chat body", () => Gateway.validate("chat.completions", chatBody))

  it.effect("rejects a chat body that breaks a rule, naming the param", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Gateway.validate("chat.completions", { ...chatBody, temperature: 3 }))
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "temperature")
      assert.strictEqual(error.message, "temperature: must be between 0 and 2 (got 3)")
    }))

  it.effect("rejects a chat body without messages", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Gateway.validate("chat.completions", { model: "gpt-4o-mini" }))
      assert.strictEqual(error.param, "messages")
    }))

  it.effect("checks an embeddings body against the embeddings schema", () =>
    Effect.gen(function*() {
      yield* Gateway.validate("embeddings", { model: "text-embedding-3-small", input: "hi" })
      const error = yield* Effect.flip(Gateway.validate("embeddings", chatBody))
      assert.strictEqual(error.param, "input")
    }))
})

describe("Gateway.handle", () => {
  it.effect("selects the provider, compiles its target and dispatches the request", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const response = yield* handle(chatBody).pipe(Effect.provide(gatewayLayer(fake.adapter)))
      assert.deepStrictEqual(fake.built, [{ provider: "fake", api_key: "sk-fake" }])
      assert.deepStrictEqual(bodyOf(response), { provider: "fake", api_key: "sk-fake" })
      assert.strictEqual(response.headers["x-gateway-provider"], "fake")
      const received = fake.received[0]
      assert.isDefined(received)
      assert.strictEqual(received.endpoint, "chat.completions")
      assert.strictEqual(received.body, chatBody)
      assert.deepStrictEqual(received.context.headers, viaProvider)
    }))

  it.effect("dispatches a plain request when the body does not ask for a stream", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      yield* handle({ ...chatBody, stream: false }).pipe(Effect.provide(gatewayLayer(fake.adapter)))
      assert.isFalse(fake.received[0]?.stream)
    }))

  it.effect("dispatches a streamed request when the body has stream: true", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      yield* handle({ ...chatBody, stream: true }).pipe(Effect.provide(gatewayLayer(fake.adapter)))
      assert.isTrue(fake.received[0]?.stream)
    }))

  it.effect("rejects an invalid body before any provider is built", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const error = yield* Effect.flip(
        handle({ ...chatBody, temperature: 3 }).pipe(Effect.provide(gatewayLayer(fake.adapter)))
      )
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "temperature")
      assert.strictEqual(fake.built.length, 0)
    }))

  it.effect("fails with InvalidRequest when the headers select no provider", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        handle(chatBody, {}).pipe(Effect.provide(gatewayLayer(recordingAdapter().adapter)))
      )
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "x-gateway-provider")
    }))

  it.effect("builds a provider once for two requests that select it alike", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      yield* Effect.all([handle(chatBody), handle(chatBody)]).pipe(Effect.provide(gatewayLayer(fake.adapter)))
      assert.strictEqual(fake.built.length, 1)
      assert.strictEqual(fake.received.length, 2)
    }))

  it.effect("selects with the Selectors its layer was built with", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const byModel: ProviderSelection.Selector = {
        name: "model",
        select: ({ model }) =>
          Effect.succeed(
            Option.some({ key: `model:${model}`, config: Effect.succeed({ provider: "fake", api_key: `sk-${model}` }) })
          )
      }
      const layer = gatewayLayer(fake.adapter, ProviderSelection.Selectors.layer([byModel]))
      yield* handle(chatBody, {}).pipe(Effect.provide(layer))
      assert.deepStrictEqual(fake.built, [{ provider: "fake", api_key: "sk-gpt-4o-mini" }])
    }))
})
