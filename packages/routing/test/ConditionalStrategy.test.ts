import { assert, describe, it } from "@effect/vitest"
import { type ConfigNode, GatewayError, type GatewayRequest } from "@switchyard/core"
import { GatewayConfig } from "@switchyard/protocol"
import { Effect, Result, Schema } from "effect"
import { answeredBy, compile, leaf, optionIndexOf, request, scriptedProvider, upstreamStatus } from "./support/Fakes.ts"

/** A condition; `then` is the config's own member name, and this object is never awaited. */
const when = (query: GatewayRequest.JsonObject, target: string) => ({
  query,
  // oxlint-disable-next-line unicorn/no-thenable
  then: target
})

const targets = [leaf("smart", { name: "smart" }), leaf("cheap", { name: "cheap" }), leaf("eu", { name: "eu" })]

const conditional = (
  conditions: ReadonlyArray<{ readonly query: GatewayRequest.JsonObject; readonly then: string }>,
  // null: no default at all (the protocol requires one; the compiler must not rely on that)
  fallbackName: string | null = "cheap"
): ConfigNode.ConfigNode => ({
  strategy: fallbackName === null
    ? { mode: "conditional", conditions }
    : { mode: "conditional", conditions, default: fallbackName },
  targets
})

/** Which target answers a request with this metadata and body. */
const route = (
  config: ConfigNode.ConfigNode,
  options: Parameters<typeof request>[0] = {}
) =>
  Effect.gen(function*() {
    const provider = scriptedProvider()
    const response = yield* (yield* compile(config, provider))(request(options))
    return answeredBy(response)
  })

describe("conditional", () => {
  it.effect("routes on metadata", () =>
    Effect.gen(function*() {
      const config = conditional([when({ "metadata.plan": "pro" }, "smart")])
      assert.strictEqual(yield* route(config, { metadata: { plan: "pro" } }), "smart")
      assert.strictEqual(yield* route(config, { metadata: { plan: "free" } }), "cheap")
    }))

  it.effect("routes on params, the request body", () =>
    Effect.gen(function*() {
      const config = conditional([when({ "params.model": { $regex: "^gpt-4o" } }, "smart")])
      assert.strictEqual(yield* route(config, { body: { model: "gpt-4o-mini", messages: [] } }), "smart")
      assert.strictEqual(yield* route(config, { body: { model: "llama-3", messages: [] } }), "cheap")
    }))

  it.effect("routes on url.pathname", () =>
    Effect.gen(function*() {
      const config = conditional([when({ "url.pathname": "/v1/embeddings" }, "eu")])
      assert.strictEqual(yield* route(config, { endpoint: "embeddings" }), "eu")
      assert.strictEqual(yield* route(config, { endpoint: "chat.completions" }), "cheap")
    }))

  it.effect("uses the first condition that matches, in order", () =>
    Effect.gen(function*() {
      const config = conditional([
        when({ "metadata.region": "eu" }, "eu"),
        when({ "metadata.plan": "pro" }, "smart")
      ])
      assert.strictEqual(yield* route(config, { metadata: { plan: "pro", region: "eu" } }), "eu")
      assert.strictEqual(yield* route(config, { metadata: { plan: "pro", region: "us" } }), "smart")
    }))

  it.effect("needs a field beside an $or to match as well", () =>
    Effect.gen(function*() {
      const query = { "metadata.plan": "pro", $or: [{ "metadata.region": "eu" }, { "params.model": "gpt-4o" }] }
      const config = conditional([when(query, "smart")])
      assert.strictEqual(yield* route(config, { metadata: { plan: "pro", region: "eu" } }), "smart")
      assert.strictEqual(yield* route(config, { metadata: { plan: "free", region: "eu" } }), "cheap")
      assert.strictEqual(yield* route(config, { metadata: { plan: "pro", region: "us" } }), "cheap")
    }))

  it.effect("needs a field beside a $regex with $options to match as well", () =>
    Effect.gen(function*() {
      const query = { "params.model": { $regex: "^GPT", $options: "i" }, "metadata.plan": "pro" }
      const config = conditional([when(query, "smart")])
      const body = { model: "gpt-4o", messages: [] }
      assert.strictEqual(yield* route(config, { body, metadata: { plan: "pro" } }), "smart")
      assert.strictEqual(yield* route(config, { body, metadata: { plan: "free" } }), "cheap")
    }))

  it.effect("supports $in, $nin, $exists and $not", () =>
    Effect.gen(function*() {
      const config = conditional([
        when({ "metadata._user": { $exists: false } }, "cheap"),
        when({ "metadata.region": { $in: ["eu", "uk"] }, "metadata.plan": { $nin: ["free"] } }, "eu"),
        when({ "params.model": { $not: { $regex: "mini" } } }, "smart")
      ], "cheap")
      const body = (model: string) => ({ model, messages: [] })
      assert.strictEqual(yield* route(config, { metadata: { region: "eu", plan: "pro" } }), "cheap")
      assert.strictEqual(yield* route(config, { metadata: { _user: "ada", region: "uk", plan: "pro" } }), "eu")
      assert.strictEqual(
        yield* route(config, { metadata: { _user: "ada", region: "uk", plan: "free" }, body: body("gpt-4o") }),
        "smart"
      )
      assert.strictEqual(
        yield* route(config, { metadata: { _user: "ada", region: "us" }, body: body("gpt-4o-mini") }),
        "cheap"
      )
    }))

  it.effect("answers with the default target when no condition matches", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const config = conditional([when({ "metadata.plan": "pro" }, "smart")], "eu")
      const response = yield* (yield* compile(config, provider))(request())
      assert.strictEqual(answeredBy(response), "eu")
      assert.strictEqual(optionIndexOf(response), "config.targets[2]")
    }))

  it.effect("fails with InvalidRequest (400) when no condition matches and there is no default", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const config = conditional([when({ "metadata.plan": "pro" }, "smart")], null)
      const error = yield* Effect.flip((yield* compile(config, provider))(request()))
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(GatewayError.toHttp(error).status, 400)
      assert.strictEqual(error.param, "config.strategy.default")
      assert.deepStrictEqual(provider.calls, [])
    }))

  it.effect("fails to compile with InvalidRequest naming a query with an unsupported operator", () =>
    Effect.gen(function*() {
      const config = conditional([
        when({ "metadata.plan": "pro" }, "smart"),
        when({ "params.messages": { $size: 2 } }, "eu")
      ])
      const error = yield* Effect.flip(compile(config, scriptedProvider()))
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "config.strategy.conditions[1].query[\"params.messages\"].$size")
      assert.isTrue(error.message.startsWith("config.strategy.conditions[1].query"))
    }))

  it.effect("fails to compile with InvalidRequest when then or default names no target", () =>
    Effect.gen(function*() {
      const unknownThen = yield* Effect.flip(
        compile(conditional([when({ "metadata.plan": "pro" }, "nope")]), scriptedProvider())
      )
      assert.strictEqual(unknownThen.param, "config.strategy.conditions[0].then")
      const unknownDefault = yield* Effect.flip(compile(conditional([], "nope"), scriptedProvider()))
      assert.strictEqual(unknownDefault.param, "config.strategy.default")
    }))

  it("is refused already by config validation when then names no target", () => {
    const decoded = Schema.decodeUnknownResult(GatewayConfig.GatewayConfig)({
      strategy: { mode: "conditional", conditions: [when({ "metadata.plan": "pro" }, "nope")], default: "a" },
      targets: [{ name: "a", provider: "openai", api_key: "sk-1" }]
    })
    assert.isTrue(Result.isFailure(decoded))
    if (Result.isFailure(decoded)) assert.include(decoded.failure.message, "no target is named \"nope\"")
  })

  it.effect("labels the chosen target's failure with its path", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("smart", upstreamStatus(500))
      const config = conditional([when({ "metadata.plan": "pro" }, "smart")])
      const error = yield* Effect.flip((yield* compile(config, provider))(request({ metadata: { plan: "pro" } })))
      assert.strictEqual(optionIndexOf(error), "config.targets[0]")
    }))

  it.effect("routes into a nested strategy named by a condition", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(503))
      const config: ConfigNode.ConfigNode = {
        strategy: { mode: "conditional", conditions: [when({ "metadata.plan": "pro" }, "pool")], default: "c" },
        targets: [
          { name: "pool", strategy: { mode: "fallback" }, targets: [leaf("a"), leaf("b")] },
          leaf("c", { name: "c" })
        ]
      }
      const response = yield* (yield* compile(config, provider))(request({ metadata: { plan: "pro" } }))
      assert.strictEqual(answeredBy(response), "b")
      assert.strictEqual(optionIndexOf(response), "config.targets[0].targets[1]")
    }))
})
