import { assert, describe, it } from "@effect/vitest"
import { GatewayError, Principal, type ProviderRegistry, RequestContext } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { ask, CompilerLive } from "../examples/RetryAndTimeout.ts"
import { ok, type Outcome, status } from "./support/FakeUpstream.ts"

/** An adapter answering the n-th call with the n-th outcome (the last one from then on), counting calls. */
const scriptedAdapter = (...outcomes: ReadonlyArray<Outcome>) => {
  const calls = { count: 0 }
  const adapter: ProviderRegistry.ProviderAdapter = {
    names: ["openai"],
    make: () =>
      Effect.succeed(() =>
        Effect.suspend(() => outcomes[Math.min(calls.count++, outcomes.length - 1)] ?? Effect.die("no outcome"))
      )
  }
  return { adapter, calls }
}

const chat = Effect.map(
  RequestContext.inProcess({
    principal: Principal.make({ keyId: "docs", workspaceId: "default", scopes: ["completions"] })
  }),
  (context) => ({
    endpoint: "chat.completions" as const,
    body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
    stream: false,
    context
  })
)

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("RetryAndTimeout: a 503 and a 429 are retried, and the answer counts the retries", () =>
    Effect.gen(function*() {
      const upstream = scriptedAdapter(status(503), status(429), ok)
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(chat, ask).pipe(Effect.provide(CompilerLive([upstream.adapter])))
      )
      yield* TestClock.adjust("1 minute")
      const response = yield* Fiber.join(fiber)
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers["x-gateway-retry-attempt-count"], "2")
      assert.strictEqual(upstream.calls.count, 3)
    }))

  it.effect("RetryAndTimeout: a status not listed is not retried", () =>
    Effect.gen(function*() {
      const upstream = scriptedAdapter(status(500), ok)
      const error = yield* Effect.flip(Effect.flatMap(chat, ask)).pipe(Effect.provide(CompilerLive([upstream.adapter])))
      assert.strictEqual(GatewayError.toHttp(error).status, 500)
      assert.strictEqual(upstream.calls.count, 1)
    }))

  it.effect("RetryAndTimeout: each of the 4 calls times out after 30 s, and the last timeout is the answer", () =>
    Effect.gen(function*() {
      const upstream = scriptedAdapter(Effect.never)
      const fiber = yield* Effect.forkChild(
        Effect.flip(Effect.flatMap(chat, ask)).pipe(Effect.provide(CompilerLive([upstream.adapter])))
      )
      yield* TestClock.adjust("10 minutes")
      const error = yield* Fiber.join(fiber)
      assert.instanceOf(error, GatewayError.UpstreamTimeout)
      assert.strictEqual(GatewayError.toHttp(error).headers["x-gateway-retry-attempt-count"], "3")
      assert.strictEqual(upstream.calls.count, 4)
    }))
})
