import { assert, describe, it } from "@effect/vitest"
import { GatewayResponse, Principal, type ProviderRegistry, RequestContext } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { ask, CompilerLive } from "../examples/CachedAnswers.ts"
import { completion } from "./support/Upstream.ts"

/** An OpenAI stand-in answering a chat completion, counting its calls. */
const countingAdapter = () => {
  const calls = { count: 0 }
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: () => Effect.succeed(() => Effect.sync(() => GatewayResponse.json(completion(`answer ${++calls.count}`))))
  }
  return { adapter, calls }
}

const chat = Effect.flatMap(
  RequestContext.inProcess({ principal: Principal.make({ keyId: "k", workspaceId: "ws-1", scopes: ["completions"] }) }),
  (context) =>
    ask({
      endpoint: "chat.completions",
      body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "What is a cache?" }] },
      stream: false,
      context
    })
)

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("CachedAnswers: a repeat is a HIT without an upstream call, until max_age has passed", () => {
    const upstream = countingAdapter()
    return Effect.gen(function*() {
      const first = yield* chat
      assert.strictEqual(first.headers["x-gateway-cache-status"], "MISS")
      const second = yield* chat
      assert.strictEqual(second.headers["x-gateway-cache-status"], "HIT")
      assert.deepStrictEqual(second._tag === "Json" ? second.body() : undefined, completion("answer 1"))
      assert.strictEqual(upstream.calls.count, 1)
      yield* TestClock.adjust("3601 seconds")
      assert.strictEqual((yield* chat).headers["x-gateway-cache-status"], "MISS")
      assert.strictEqual(upstream.calls.count, 2)
    }).pipe(Effect.provide(CompilerLive([upstream.adapter])))
  })
})
