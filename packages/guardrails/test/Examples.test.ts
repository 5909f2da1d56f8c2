import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  GatewayError,
  GatewayRequest,
  GatewayResponse,
  Principal,
  ProviderRegistry,
  RequestContext,
  Stage,
  Strategy
} from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Feedback, Guardrails, HookDenied } from "@switchyard/guardrails"
import { Effect, Layer } from "effect"
import { ask, CompilerLive } from "../examples/DenyPii.ts"
import { isPolite } from "../examples/PoliteCheck.ts"
import { answer } from "./support/Fake.ts"

/** An OpenAI stand-in that answers and records what reached it. */
const recordingAdapter = () => {
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: () =>
      Effect.succeed((request) =>
        Effect.sync(() => {
          received.push(request)
          return GatewayResponse.json(answer("Hello"))
        })
      )
  }
  return { adapter, received }
}

const chatWith = (content: string) =>
  Effect.map(
    RequestContext.inProcess({
      principal: Principal.make({ keyId: "k", workspaceId: "ws-1", scopes: ["completions"] })
    }),
    (context): GatewayRequest.GatewayRequest => ({
      endpoint: "chat.completions",
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content }] },
      stream: false,
      context
    })
  )

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("DenyPii: an e-mail address is denied with 446 before the provider; other text passes", () => {
    const upstream = recordingAdapter()
    return Effect.gen(function*() {
      const denied = yield* Effect.flip(Effect.flatMap(chatWith("mail me at jane@example.com"), ask))
      assert.instanceOf(denied, HookDenied.HookDenied)
      const http = GatewayError.toHttp(denied)
      assert.strictEqual(http.status, 446)
      assert.strictEqual(http.body.error.code, "hook_denied")
      assert.strictEqual(upstream.received.length, 0)
      const passed = yield* Effect.flatMap(chatWith("what is a guardrail?"), ask)
      assert.strictEqual(passed.status, 200)
      assert.strictEqual(upstream.received.length, 1)
    }).pipe(Effect.provide(CompilerLive([upstream.adapter])))
  })

  it.effect("PoliteCheck: a check of one's own, passed to Guardrails.stage, decides by its parameters", () => {
    const upstream = recordingAdapter()
    const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
      Layer.provide([
        Guardrails.stage(Effect.succeed({ checks: [isPolite] })),
        Strategy.Strategies.layerSingle,
        ProviderRegistry.ProviderRegistry.layer([upstream.adapter])
      ]),
      Layer.provide([Stage.Stages.layer, Feedback.FeedbackStore.layerMemory])
    )
    const config = {
      provider: "openai",
      api_key: "sk-123",
      input_guardrails: [{ "acme.isPolite": { word: "please" }, deny: true }]
    } as const
    const send = (content: string) =>
      Effect.gen(function*() {
        const dispatch = yield* ConfigCompiler.ConfigCompiler.use((c) => c.dispatch("polite", Effect.succeed(config)))
        return yield* dispatch(yield* chatWith(content))
      })
    return Effect.gen(function*() {
      assert.instanceOf(yield* Effect.flip(send("give me the answer")), HookDenied.HookDenied)
      assert.strictEqual((yield* send("give me the answer, please")).status, 200)
      assert.strictEqual(upstream.received.length, 1)
    }).pipe(Effect.provide(compiler))
  })
})
