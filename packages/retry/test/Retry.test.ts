import { assert, describe, it } from "@effect/vitest"
import { Dispatch, GatewayError, GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { GatewayConfig, type RetryConfig } from "@switchyard/protocol"
import { Retry } from "@switchyard/retry"
import { Duration, Effect, Fiber, Random, Result, Stream } from "effect"
import { TestClock } from "effect/testing"
import { ok, type Outcome, request, scripted, status, unreachable } from "./support/FakeUpstream.ts"

const COUNT = Retry.ATTEMPT_COUNT_HEADER

/** Runs a retried dispatch to its end, letting the test clock pass every wait. */
const settle = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(Effect.result(effect))
    yield* TestClock.adjust("10 minutes")
    return yield* Fiber.join(fiber)
  })

const retried = (config: RetryConfig.RetryConfig, ...outcomes: ReadonlyArray<Outcome>) => {
  const upstream = scripted(...outcomes)
  return { ...upstream, dispatch: Dispatch.compose(upstream.dispatch, Retry.middleware(config)) }
}

const failureOf = <A>(
  result: { readonly _tag: "Success"; readonly success: A } | {
    readonly _tag: "Failure"
    readonly failure: GatewayError.GatewayError
  }
): GatewayError.GatewayError => {
  if (result._tag === "Success") throw new Error("expected a failure")
  return result.failure
}

const countOf = (error: GatewayError.GatewayError): string | undefined => GatewayError.toHttp(error).headers[COUNT]

/**
 * The waits a run seeded with `seed` draws: full jitter, the n-th in [0, min(cap, 100 ms * 2^(n-1))).
 */
const expectedWaits = (seed: string, retries: number, base = 100, cap = 10_000) =>
  Effect.gen(function*() {
    const waits: Array<number> = []
    for (let n = 0; n < retries; n++) {
      waits.push(Math.floor(yield* Random.nextBetween(0, Math.min(cap, base * 2 ** n))))
    }
    return waits
  }).pipe(Random.withSeed(seed))

const gaps = (calls: ReadonlyArray<number>) => calls.slice(1).map((at, i) => at - (calls[i] ?? 0))

describe("Retry.middleware", () => {
  for (const attempts of [0, 1, 2, 3, 4, 5]) {
    it.effect(`with attempts ${attempts} calls the upstream exactly ${attempts + 1} times when every call fails`, () =>
      Effect.gen(function*() {
        const upstream = retried({ attempts }, status(503))
        const error = failureOf(yield* settle(upstream.dispatch(request())))
        assert.strictEqual(upstream.calls.length, attempts + 1)
        assert.strictEqual(error._tag, "UpstreamStatus")
        assert.strictEqual(countOf(error), String(attempts))
      }))
  }

  it.effect("stops at the first success and reports the retries made", () =>
    Effect.gen(function*() {
      const upstream = retried({ attempts: 5 }, status(500), status(429), ok)
      const result = yield* settle(upstream.dispatch(request()))
      assert.strictEqual(upstream.calls.length, 3)
      assert.strictEqual(result._tag, "Success")
      if (result._tag === "Success") assert.strictEqual(result.success.headers[COUNT], "2")
    }))

  it.effect("reports a count of 0 on an answer that needed no retry", () =>
    Effect.gen(function*() {
      const upstream = retried({ attempts: 3 }, ok)
      const response = yield* upstream.dispatch(request())
      assert.strictEqual(upstream.calls.length, 1)
      assert.strictEqual(response.headers[COUNT], "0")
    }))

  it.effect("carries the count on the final failure after every retry failed", () =>
    Effect.gen(function*() {
      const upstream = retried({ attempts: 2 }, status(502, { "retry-after": "1" }))
      const failure = GatewayError.toHttp(failureOf(yield* settle(upstream.dispatch(request()))))
      assert.strictEqual(failure.status, 502)
      assert.strictEqual(failure.headers[COUNT], "2")
      // the provider's own rate-limit hints still reach the client beside it
      assert.strictEqual(failure.headers["retry-after"], "1")
    }))

  it.effect("labels a stream answer too, and retries only until the stream is produced", () =>
    Effect.gen(function*() {
      const chunks = Stream.make({ id: "1" }, { id: "2" })
      const upstream = retried({ attempts: 2 }, unreachable, Effect.succeed(GatewayResponse.stream(chunks)))
      const result = yield* settle(upstream.dispatch(request(true)))
      assert.strictEqual(result._tag, "Success")
      if (result._tag !== "Success" || result.success._tag !== "Stream") return assert.fail("expected a stream")
      assert.strictEqual(result.success.headers[COUNT], "1")
      assert.deepStrictEqual(yield* Stream.runCollect(result.success.chunks), [{ id: "1" }, { id: "2" }])
    }))

  describe("what is retried", () => {
    for (const code of Retry.DEFAULT_STATUS_CODES) {
      it.effect(`retries ${code} by default`, () =>
        Effect.gen(function*() {
          const upstream = retried({ attempts: 1 }, status(code), ok)
          assert.strictEqual((yield* settle(upstream.dispatch(request())))._tag, "Success")
          assert.strictEqual(upstream.calls.length, 2)
        }))
    }

    for (const code of [400, 401, 403, 404, 408, 409, 422, 501]) {
      it.effect(`does not retry ${code} by default`, () =>
        Effect.gen(function*() {
          const upstream = retried({ attempts: 3 }, status(code), ok)
          const error = failureOf(yield* settle(upstream.dispatch(request())))
          assert.strictEqual(upstream.calls.length, 1)
          assert.strictEqual(GatewayError.upstreamStatusOf(error), code)
          assert.strictEqual(countOf(error), "0")
        }))
    }

    it.effect("retries exactly the statuses of a custom on_status_codes", () =>
      Effect.gen(function*() {
        const config = { attempts: 3, on_status_codes: [409, 400] }
        const listed = retried(config, status(409), status(400), ok)
        assert.strictEqual((yield* settle(listed.dispatch(request())))._tag, "Success")
        assert.strictEqual(listed.calls.length, 3)
        const unlisted = retried(config, status(500), ok)
        assert.strictEqual((yield* settle(unlisted.dispatch(request())))._tag, "Failure")
        assert.strictEqual(unlisted.calls.length, 1)
      }))

    it.effect("retries a connection error whatever on_status_codes lists", () =>
      Effect.gen(function*() {
        const upstream = retried({ attempts: 3, on_status_codes: [429] }, unreachable, unreachable, ok)
        assert.strictEqual((yield* settle(upstream.dispatch(request())))._tag, "Success")
        assert.strictEqual(upstream.calls.length, 3)
      }))

    it.effect("retries a timeout whatever on_status_codes lists", () =>
      Effect.gen(function*() {
        const timeout = Effect.fail(new GatewayError.UpstreamTimeout({ provider: "fake", timeoutMs: 5 }))
        const upstream = retried({ attempts: 3, on_status_codes: [429] }, timeout, ok)
        assert.strictEqual((yield* settle(upstream.dispatch(request())))._tag, "Success")
        assert.strictEqual(upstream.calls.length, 2)
      }))

    it.effect("never retries the gateway's own errors", () =>
      Effect.gen(function*() {
        const invalid = Effect.fail(new GatewayError.InvalidRequest({ message: "bad", param: "messages" }))
        const upstream = retried({ attempts: 5, on_status_codes: [400] }, invalid, ok)
        const error = failureOf(yield* settle(upstream.dispatch(request())))
        assert.strictEqual(upstream.calls.length, 1)
        assert.strictEqual(error._tag, "InvalidRequest")
        assert.strictEqual(GatewayError.toHttp(error).status, 400)
      }))

    it.effect("does not retry a target whose circuit is open", () =>
      Effect.gen(function*() {
        const open = Effect.fail(new GatewayError.TargetsUnavailable({ message: "circuit open" }))
        const upstream = retried({ attempts: 5 }, open, ok)
        const error = failureOf(yield* settle(upstream.dispatch(request())))
        assert.strictEqual(upstream.calls.length, 1)
        assert.strictEqual(countOf(error), "0")
      }))
  })

  describe("backoff", () => {
    it.effect("waits a seeded full-jitter exponential backoff, calling only once each wait is over", () =>
      Effect.gen(function*() {
        const seed = "switchyard"
        const waits = yield* expectedWaits(seed, 5)
        const upstream = retried({ attempts: 5 }, status(503))
        const fiber = yield* Effect.forkChild(Effect.result(upstream.dispatch(request()).pipe(Random.withSeed(seed))))
        yield* TestClock.adjust(0)
        assert.strictEqual(upstream.calls.length, 1)
        for (const [n, wait] of waits.entries()) {
          if (wait > 0) {
            yield* TestClock.adjust(wait - 1)
            assert.strictEqual(upstream.calls.length, n + 1, `retry ${n + 1} came before its wait of ${wait} ms`)
            yield* TestClock.adjust(1)
          } else {
            yield* TestClock.adjust(0)
          }
          assert.strictEqual(upstream.calls.length, n + 2, `retry ${n + 1} did not come after ${wait} ms`)
        }
        yield* Fiber.join(fiber)
        assert.deepStrictEqual(gaps(upstream.calls), waits)
      }))

    it.effect("draws every wait below its exponential bound", () =>
      Effect.gen(function*() {
        for (const seed of ["a", "b", "c", "d", "e", "f", "g", "h"]) {
          const upstream = retried({ attempts: 5 }, unreachable)
          yield* settle(upstream.dispatch(request()).pipe(Random.withSeed(seed)))
          for (const [n, gap] of gaps(upstream.calls).entries()) {
            assert.isAtLeast(gap, 0)
            assert.isBelow(gap, 100 * 2 ** n)
          }
        }
      }))

    it.effect("caps the backoff at its maximum", () =>
      Effect.gen(function*() {
        const backoff = { base: Duration.seconds(1), max: Duration.seconds(2) }
        const seed = "cap"
        const waits = yield* expectedWaits(seed, 5, 1000, 2000)
        const upstream = scripted(status(500))
        const dispatch = Dispatch.compose(upstream.dispatch, Retry.middleware({ attempts: 5 }, backoff))
        yield* settle(dispatch(request()).pipe(Random.withSeed(seed)))
        assert.deepStrictEqual(gaps(upstream.calls), waits)
        for (const gap of gaps(upstream.calls)) assert.isBelow(gap, 2000)
      }))
  })

  describe("Retry-After headers", () => {
    const honoured = { attempts: 1, use_retry_after_headers: true }

    /** The wait between the failed call and its retry. */
    const waitAfter = (config: RetryConfig.RetryConfig, headers: Readonly<Record<string, string>>) =>
      Effect.gen(function*() {
        const upstream = retried(config, status(429, headers), ok)
        yield* settle(upstream.dispatch(request()).pipe(Random.withSeed("jitter")))
        assert.strictEqual(upstream.calls.length, 2)
        return gaps(upstream.calls)[0]
      })

    it.effect("waits retry-after seconds, and not a moment less", () =>
      Effect.gen(function*() {
        const upstream = retried(honoured, status(429, { "retry-after": "3" }), ok)
        const fiber = yield* Effect.forkChild(upstream.dispatch(request()))
        yield* TestClock.adjust(2999)
        assert.strictEqual(upstream.calls.length, 1)
        yield* TestClock.adjust(1)
        assert.strictEqual(upstream.calls.length, 2)
        assert.strictEqual((yield* Fiber.join(fiber)).headers[COUNT], "1")
      }))

    it.effect("waits until an HTTP date measured on the Clock", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        assert.strictEqual(yield* waitAfter(honoured, { "retry-after": "Sun, 06 Nov 1994 08:49:42 GMT" }), 5000)
      }))

    it.effect("retries at once after an HTTP date already past", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        assert.strictEqual(yield* waitAfter(honoured, { "retry-after": "Sun, 06 Nov 1994 08:00:00 GMT" }), 0)
      }))

    it.effect("waits retry-after-ms", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* waitAfter(honoured, { "retry-after-ms": "1500" }), 1500)
      }))

    it.effect("waits x-ms-retry-after-ms", () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* waitAfter(honoured, { "x-ms-retry-after-ms": "250" }), 250)
      }))

    it.effect("prefers retry-after-ms, then x-ms-retry-after-ms, then retry-after", () =>
      Effect.gen(function*() {
        const all = { "retry-after-ms": "700", "x-ms-retry-after-ms": "800", "retry-after": "9" }
        assert.strictEqual(yield* waitAfter(honoured, all), 700)
        assert.strictEqual(yield* waitAfter(honoured, { "x-ms-retry-after-ms": "800", "retry-after": "9" }), 800)
      }))

    for (
      const [name, value] of [
        ["retry-after", "3600"],
        ["retry-after-ms", "120000"],
        ["x-ms-retry-after-ms", "90000"],
        ["retry-after", "Sun, 06 Nov 1994 10:00:00 GMT"]
      ] as const
    ) {
      it.effect(`caps ${name}: ${value} at 60 s`, () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
          const upstream = retried(honoured, status(503, { [name]: value }), ok)
          const fiber = yield* Effect.forkChild(upstream.dispatch(request()))
          yield* TestClock.adjust(59_999)
          assert.strictEqual(upstream.calls.length, 1)
          yield* TestClock.adjust(1)
          assert.strictEqual(upstream.calls.length, 2)
          yield* Fiber.join(fiber)
        }))
    }

    it.effect("ignores the headers unless use_retry_after_headers is true", () =>
      Effect.gen(function*() {
        const wait = yield* waitAfter({ attempts: 1 }, { "retry-after": "30" })
        assert.strictEqual(wait, (yield* expectedWaits("jitter", 1))[0])
      }))

    it.effect("falls back to the backoff when the header cannot be read", () =>
      Effect.gen(function*() {
        const wait = yield* waitAfter(honoured, {
          "retry-after": "1.5",
          "retry-after-ms": "-5",
          "x-ms-retry-after-ms": "soon"
        })
        assert.strictEqual(wait, (yield* expectedWaits("jitter", 1))[0])
      }))
  })
})

describe("Retry.factory", () => {
  const target = (fields: Record<string, unknown>): ProviderTarget.ProviderTarget => ({ provider: "fake", ...fields })

  it.effect("retries by the retry a target inherited", () =>
    Effect.gen(function*() {
      const upstream = scripted(status(500))
      const middleware = yield* Retry.factory(target({ retry: { attempts: 2 } }), "config.targets[0]")
      yield* settle(Dispatch.compose(upstream.dispatch, middleware)(request()))
      assert.strictEqual(upstream.calls.length, 3)
    }))

  it.effect("labels a target without retry with a count of 0 and calls once", () =>
    Effect.gen(function*() {
      const upstream = scripted(status(500), ok)
      const middleware = yield* Retry.factory(target({}), "config")
      const error = failureOf(yield* settle(Dispatch.compose(upstream.dispatch, middleware)(request())))
      assert.strictEqual(upstream.calls.length, 1)
      assert.strictEqual(countOf(error), "0")
    }))

  // the stage reads `retry` as the config's decode left it: its rules are checked there, once
  it("a retry that breaks the config's rules is a 400 naming its path, where the config is decoded", () => {
    const decoded = GatewayConfig.decodeResult({
      strategy: { mode: "fallback" },
      targets: [{ provider: "openai", api_key: "sk" }, { provider: "openai", api_key: "sk", retry: { attempts: 9 } }]
    })
    assert.isTrue(Result.isFailure(decoded) && decoded.failure.param === "config.targets[1].retry.attempts")
  })
})
