import { assert, describe, it } from "@effect/vitest"
import { GatewayError, type ProviderRegistry } from "@switchyard/core"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { ask, CompilerLive } from "../examples/CircuitPerTarget.ts"
import { ok, request, status, Upstream } from "./support/Upstream.ts"

const adapterOver = (upstream: Upstream): ProviderRegistry.ProviderAdapter => ({
  names: ["openai"],
  make: () => Effect.succeed(upstream.dispatch)
})

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("CircuitPerTarget: three failures open the circuit; after the cooldown one probe closes it", () => {
    const upstream = new Upstream()
    return Effect.gen(function*() {
      upstream.answer = status(503)
      for (let failure = 0; failure < 3; failure++) {
        assert.instanceOf(yield* Effect.flip(ask(request)), GatewayError.UpstreamStatus)
      }
      const open = yield* Effect.flip(ask(request))
      assert.instanceOf(open, GatewayError.TargetsUnavailable)
      assert.strictEqual(open.message, "openai: circuit open")
      assert.strictEqual(GatewayError.toHttp(open).status, 503)
      assert.strictEqual(upstream.calls, 3)
      upstream.answer = ok
      yield* TestClock.adjust("60 seconds")
      assert.strictEqual((yield* ask(request)).status, 200)
      assert.strictEqual((yield* ask(request)).status, 200)
      assert.strictEqual(upstream.calls, 5)
    }).pipe(Effect.provide(CompilerLive([adapterOver(upstream)])))
  })
})
