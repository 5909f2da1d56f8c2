import { assert, describe, it } from "@effect/vitest"
import { GatewayError, GatewayResponse, Principal, type ProviderRegistry, RequestContext } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { ask, CompilerLive } from "../examples/Fallback.ts"

/** Adapters for openai (failing with the status set in `openaiStatus`) and anthropic (answering). */
const providers = () => {
  const state = { openaiStatus: 503, calls: [] as Array<string> }
  const adapter = (name: string): ProviderRegistry.ProviderAdapter => ({
    names: [name],
    make: () =>
      Effect.succeed(() =>
        Effect.suspend(() => {
          state.calls.push(name)
          return name === "openai"
            ? Effect.fail(
              new GatewayError.UpstreamStatus({ provider: name, status: state.openaiStatus, body: {}, headers: {} })
            )
            : Effect.succeed(GatewayResponse.json({ answeredBy: name }))
        })
      )
  })
  return { adapters: [adapter("openai"), adapter("anthropic")], state }
}

const chat = Effect.flatMap(
  RequestContext.inProcess({ principal: Principal.make({ keyId: "k", workspaceId: "ws-1", scopes: ["completions"] }) }),
  (context) =>
    ask({
      endpoint: "chat.completions",
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
      stream: false,
      context
    })
)

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("Fallback: a 503 from openai falls back to anthropic, which the answer names", () => {
    const { adapters, state } = providers()
    return Effect.gen(function*() {
      const response = yield* chat
      assert.strictEqual(response.headers["x-gateway-last-used-option-index"], "config.targets[1]")
      assert.strictEqual(response.headers["x-gateway-provider"], "anthropic")
      assert.deepStrictEqual(state.calls, ["openai", "anthropic"])
    }).pipe(Effect.provide(CompilerLive(adapters)))
  })

  it.effect("Fallback: a status not listed (500) is the answer, naming the target that failed", () => {
    const { adapters, state } = providers()
    state.openaiStatus = 500
    return Effect.gen(function*() {
      const http = GatewayError.toHttp(yield* Effect.flip(chat))
      assert.strictEqual(http.status, 500)
      assert.strictEqual(http.headers["x-gateway-last-used-option-index"], "config.targets[0]")
      assert.deepStrictEqual(state.calls, ["openai"])
    }).pipe(Effect.provide(CompilerLive(adapters)))
  })
})
