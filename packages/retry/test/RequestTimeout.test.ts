import { assert, describe, it } from "@effect/vitest"
import { Dispatch, GatewayError, GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { GatewayConfig } from "@switchyard/protocol"
import { RequestTimeout } from "@switchyard/retry"
import { Effect, Fiber, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { ok, request, scripted, status } from "./support/FakeUpstream.ts"

/** An upstream that never answers and records whether its call was interrupted. */
const stalled = () => {
  const state = { calls: 0, interrupted: 0 }
  const dispatch: Dispatch.Dispatch = () =>
    Effect.suspend(() => {
      state.calls++
      return Effect.never
    }).pipe(Effect.onInterrupt(() => Effect.sync(() => void state.interrupted++)))
  return { dispatch, state }
}

const target = (fields: Partial<ProviderTarget.ProviderTarget>): ProviderTarget.ProviderTarget => ({
  provider: "fake",
  ...fields
})

describe("RequestTimeout.middleware", () => {
  it.effect("fails with a 408 UpstreamTimeout once request_timeout has passed, not before", () =>
    Effect.gen(function*() {
      const upstream = stalled()
      const dispatch = Dispatch.compose(upstream.dispatch, RequestTimeout.middleware("fake", 1000))
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request())))
      yield* TestClock.adjust(999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual(error, new GatewayError.UpstreamTimeout({ provider: "fake", timeoutMs: 1000 }))
      assert.strictEqual(GatewayError.toHttp(error).status, 408)
    }))

  it.effect("interrupts the abandoned attempt, so its upstream call is cancelled", () =>
    Effect.gen(function*() {
      const upstream = stalled()
      const dispatch = Dispatch.compose(upstream.dispatch, RequestTimeout.middleware("fake", 50))
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request())))
      yield* TestClock.adjust(50)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(upstream.state, { calls: 1, interrupted: 1 })
    }))

  it.effect("bounds a JSON answer until its body is read whole", () =>
    Effect.gen(function*() {
      const slowBody = scripted(Effect.delay(ok, "2 seconds"))
      const dispatch = Dispatch.compose(slowBody.dispatch, RequestTimeout.middleware("fake", 1000))
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request())))
      yield* TestClock.adjust(1000)
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "UpstreamTimeout")
    }))

  it.effect("passes on an answer that came in time, untouched", () =>
    Effect.gen(function*() {
      const answer = GatewayResponse.json({ ok: true })
      const upstream = scripted(Effect.delay(Effect.succeed(answer), "999 millis"))
      const dispatch = Dispatch.compose(upstream.dispatch, RequestTimeout.middleware("fake", 1000))
      const fiber = yield* Effect.forkChild(dispatch(request()))
      yield* TestClock.adjust(999)
      assert.strictEqual(yield* Fiber.join(fiber), answer)
    }))

  it.effect("passes on an upstream failure that came in time", () =>
    Effect.gen(function*() {
      const dispatch = Dispatch.compose(scripted(status(503)).dispatch, RequestTimeout.middleware("fake", 1000))
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(GatewayError.upstreamStatusOf(error), 503)
    }))

  it.effect("fails a stream whose provider has not answered in time", () =>
    Effect.gen(function*() {
      const late = Effect.delay(Effect.succeed(GatewayResponse.stream(Stream.make({ id: "1" }))), "5 seconds")
      const dispatch = Dispatch.compose(scripted(late).dispatch, RequestTimeout.middleware("fake", 1000))
      const fiber = yield* Effect.forkChild(Effect.flip(dispatch(request(true))))
      yield* TestClock.adjust(1000)
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "UpstreamTimeout")
    }))

  it.effect("lets a stream that began in time run past the timeout", () =>
    Effect.gen(function*() {
      const slowChunks = Stream.make({ id: "1" }, { id: "2" }).pipe(Stream.tap(() => Effect.sleep("3 seconds")))
      const upstream = scripted(Effect.succeed(GatewayResponse.stream(slowChunks)))
      const dispatch = Dispatch.compose(upstream.dispatch, RequestTimeout.middleware("fake", 1000))
      const response = yield* dispatch(request(true))
      if (response._tag !== "Stream") return assert.fail("expected a stream")
      const fiber = yield* Effect.forkChild(Stream.runCollect(response.chunks))
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [{ id: "1" }, { id: "2" }])
    }))
})

describe("RequestTimeout.factory", () => {
  it.effect("bounds each call by the target's request_timeout", () =>
    Effect.gen(function*() {
      const upstream = stalled()
      const middleware = yield* RequestTimeout.factory(target({ provider: "groq", request_timeout: 250 }), "config")
      const fiber = yield* Effect.forkChild(Effect.flip(Dispatch.compose(upstream.dispatch, middleware)(request())))
      yield* TestClock.adjust(250)
      assert.deepStrictEqual(
        yield* Fiber.join(fiber),
        new GatewayError.UpstreamTimeout({ provider: "groq", timeoutMs: 250 })
      )
    }))

  it.effect("leaves a target without request_timeout as it is", () =>
    Effect.gen(function*() {
      const upstream = scripted(ok)
      const middleware = yield* RequestTimeout.factory(target({}), "config")
      assert.strictEqual(middleware(upstream.dispatch), upstream.dispatch)
    }))

  // the stage reads request_timeout as the config's decode left it: the rule is checked there, once
  it("a request_timeout that is not a whole number of milliseconds >= 1 is a 400 where the config is decoded", () => {
    for (const request_timeout of [0, -5, 1.5, Number.NaN]) {
      const decoded = GatewayConfig.decodeResult({ provider: "openai", api_key: "sk", request_timeout })
      assert.isTrue(Result.isFailure(decoded) && decoded.failure.param === "config.request_timeout")
    }
  })
})
