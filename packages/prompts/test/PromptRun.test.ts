import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  Gateway,
  GatewayError,
  type GatewayRequest,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  ProviderSelection,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { PromptRun, PromptStage, PromptStore } from "@switchyard/prompts"
import type { PromptTemplate } from "@switchyard/protocol"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"

/** Providers that record what reached them, by name; `failing` answers 500. */
const recording = () => {
  const received: Array<{ readonly provider: string; readonly body: GatewayRequest.JsonObject }> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai", "failing"],
    make: (target) =>
      Effect.succeed((request) =>
        Effect.suspend(() => {
          received.push({ provider: target.provider, body: request.body })
          return target.provider === "failing"
            ? Effect.fail(
              new GatewayError.UpstreamStatus({ provider: "failing", status: 500, body: "down", headers: {} })
            )
            : Effect.succeed(GatewayResponse.json({ object: "chat.completion", from: target.provider }))
        })
      )
  }
  return { adapter, received }
}

const routing = Strategy.Strategies.layer({
  single: Strategy.single,
  // the first target that answers, for the fallback test (the routing package's is not a dependency)
  fallback: (_strategy, targets) =>
    Effect.succeed((request) =>
      targets.reduce<ReturnType<(typeof targets)[number]["dispatch"]>>(
        (previous, target) => Effect.catch(previous, () => target.dispatch(request)),
        Effect.fail(new GatewayError.InvalidRequest({ message: "no target", param: null }))
      )
    )
})

const gatewayWith = (adapter: ProviderRegistry.ProviderAdapter) =>
  Gateway.Gateway.layer.pipe(
    Layer.provide(ProviderSelection.Selectors.layerHeaders),
    Layer.provide(
      ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide([PromptStage.layer, routing]),
        Layer.provide([Stage.Stages.layer, ProviderRegistry.ProviderRegistry.layer([adapter])])
      )
    ),
    Layer.provideMerge(PromptStore.PromptStore.layer),
    Layer.provide(TestDatabase.layerSqlite)
  )

const principal = Principal.make({ keyId: "k", workspaceId: "ws-run", scopes: ["completions"] })

const create = (body: Partial<PromptTemplate.CreatePrompt> = {}) =>
  PromptStore.PromptStore.use((prompts) =>
    prompts.create(principal.workspaceId, {
      name: "p",
      model: "gpt-4o-mini",
      template: [{ role: "user", content: "about {{topic}}" }],
      parameters: { temperature: 0.1, max_tokens: 10 },
      ...body
    })
  )

const complete = (reference: string, run: PromptTemplate.RunPrompt, headers: Record<string, string>) =>
  Effect.flatMap(
    RequestContext.inProcess({ principal, headers }),
    (context) => PromptRun.complete({ reference, run, context })
  )

const viaOpenAI = { "x-gateway-provider": "openai", authorization: "Bearer sk" }

describe("PromptRun and PromptStage", () => {
  it.effect("merges the version's model and parameters under the run's hyperparameters", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const prompt = yield* create()
      yield* complete(prompt.id, { variables: { topic: "tea" }, temperature: 0.9, seed: 3 }, viaOpenAI)
      assert.deepStrictEqual(upstream.received[0]?.body, {
        model: "gpt-4o-mini",
        temperature: 0.9,
        max_tokens: 10,
        seed: 3,
        messages: [{ role: "user", content: "about tea" }]
      })
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })

  it.effect("names the field of a bad merged request, and a model that nothing gives", () =>
    Effect.gen(function*() {
      const prompt = yield* PromptStore.PromptStore.use((prompts) =>
        prompts.create(principal.workspaceId, { name: "no model", template: [{ role: "user", content: "{{topic}}" }] })
      )
      const noModel = yield* Effect.flip(complete(prompt.id, { variables: { topic: "x" } }, viaOpenAI))
      assert.strictEqual(noModel instanceof GatewayError.InvalidRequest ? noModel.param : noModel._tag, "model")
      const badValue = yield* Effect.flip(
        complete(prompt.id, { variables: { topic: "x" }, model: "m", n: 0 }, viaOpenAI)
      )
      assert.strictEqual(badValue instanceof GatewayError.InvalidRequest ? badValue.param : badValue._tag, "n")
    }).pipe(Effect.provide(gatewayWith(recording().adapter))))

  it.effect("uses the prompt's provider only when the request selects none", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const prompt = yield* create({ provider: "failing" })
      const failed = yield* Effect.flip(complete(prompt.id, { variables: { topic: "x" } }, {}))
      assert.strictEqual(GatewayError.toHttp(failed).status, 500)
      yield* complete(prompt.id, { variables: { topic: "x" } }, viaOpenAI)
      assert.deepStrictEqual(upstream.received.map((call) => call.provider), ["failing", "openai"])
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })

  it.effect("renders a leaf's own prompt, with its override_params applied last, and falls back to another", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const path = yield* create()
      const first = yield* create({ template: [{ role: "user", content: "A {{topic}}" }] })
      const second = yield* create({ model: "gpt-4o", template: [{ role: "user", content: "B {{topic}}" }] })
      const config = {
        strategy: { mode: "fallback" },
        targets: [
          { provider: "failing", api_key: "sk", prompt_id: first.id },
          { provider: "openai", api_key: "sk", prompt_id: `${second.id}@latest`, override_params: { max_tokens: 99 } }
        ]
      }
      const answer = yield* complete(path.id, { variables: { topic: "tea" } }, {
        "x-gateway-config": JSON.stringify(config)
      })
      assert.strictEqual(answer.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.deepStrictEqual(upstream.received.map((call) => call.body.messages), [
        [{ role: "user", content: "A tea" }],
        [{ role: "user", content: "B tea" }]
      ])
      assert.deepStrictEqual(
        [upstream.received[1]?.body.model, upstream.received[1]?.body.max_tokens],
        ["gpt-4o", 99]
      )
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })

  it.effect("gives a leaf that names only its prompt the prompt's provider", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const path = yield* create()
      const failing = yield* create({ provider: "failing", template: [{ role: "user", content: "A {{topic}}" }] })
      const answering = yield* create({ provider: "openai", template: [{ role: "user", content: "B {{topic}}" }] })
      const config = {
        strategy: { mode: "fallback" },
        api_key: "sk-shared",
        targets: [{ prompt_id: failing.id }, { prompt_id: answering.id }]
      }
      const answer = yield* complete(path.id, { variables: { topic: "tea" } }, {
        "x-gateway-config": JSON.stringify(config)
      })
      assert.strictEqual(answer.headers["x-gateway-provider"], "openai")
      assert.strictEqual(answer.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.deepStrictEqual(upstream.received.map((call) => [call.provider, call.body.messages]), [
        ["failing", [{ role: "user", content: "A tea" }]],
        ["openai", [{ role: "user", content: "B tea" }]]
      ])
      const nowhere = yield* create()
      const refused = yield* Effect.flip(
        complete(path.id, { variables: { topic: "tea" } }, {
          "x-gateway-config": JSON.stringify({ prompt_id: nowhere.id })
        })
      )
      assert.strictEqual(refused instanceof GatewayError.InvalidRequest ? refused.param : "", "config.prompt_id")
      assert.strictEqual(upstream.received.length, 2)
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })

  it.effect("refuses a leaf with prompt_id outside a prompt completion, naming it, before any provider", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const prompt = yield* create()
      const config = {
        strategy: { mode: "single" },
        targets: [{ provider: "openai", api_key: "sk", prompt_id: prompt.id }]
      }
      const context = yield* RequestContext.inProcess({
        principal,
        headers: { "x-gateway-config": JSON.stringify(config) }
      })
      const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }
      const refused = yield* Effect.flip(
        Gateway.Gateway.use((gateway) => gateway.handle({ endpoint: "chat.completions", body, context }))
      )
      assert.instanceOf(refused, GatewayError.InvalidRequest)
      assert.strictEqual(
        refused instanceof GatewayError.InvalidRequest ? refused.param : "",
        "config.targets[0].prompt_id"
      )
      const alone = yield* Effect.flip(
        Effect.flatMap(
          RequestContext.inProcess({
            principal,
            headers: { "x-gateway-config": JSON.stringify({ prompt_id: prompt.id }) }
          }),
          (context) => Gateway.Gateway.use((gateway) => gateway.handle({ endpoint: "chat.completions", body, context }))
        )
      )
      assert.strictEqual(alone instanceof GatewayError.InvalidRequest ? alone.param : "", "config.prompt_id")
      assert.strictEqual(upstream.received.length, 0)
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })

  it.effect("renders without a provider: PromptRun.render is what a completion sends", () => {
    const upstream = recording()
    return Effect.gen(function*() {
      const prompt = yield* create()
      const run = { variables: { topic: "maps" }, top_p: 0.5 }
      const rendered = yield* PromptRun.render({ workspaceId: principal.workspaceId, reference: prompt.id, run })
      assert.strictEqual(upstream.received.length, 0)
      yield* complete(prompt.id, run, viaOpenAI)
      assert.deepStrictEqual(upstream.received[0]?.body, rendered)
    }).pipe(Effect.provide(gatewayWith(upstream.adapter)))
  })
})
