import { assert, describe, it } from "@effect/vitest"
import { CircuitBoard, CircuitBreakerMiddleware, CircuitKey } from "@switchyard/circuit-breaker"
import type { ProviderTarget } from "@switchyard/core"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Upstream from "./support/Upstream.ts"

const COOLDOWN = 30_000

/** The board over a memory store; the stage's factory sees the watched store the board provides. */
const board = Effect.provide(CircuitBoard.layer.pipe(Layer.provide(CircuitBreakerMiddleware.layerMemory)))

const guarded = (target: ProviderTarget.ProviderTarget) =>
  Effect.gen(function*() {
    const middlewareFor = yield* CircuitBreakerMiddleware.factory
    const upstream = new Upstream.Upstream()
    const dispatch = (yield* middlewareFor(target, "config"))(upstream.dispatch)
    return { upstream, call: dispatch(Upstream.request) }
  })

const attempt = (call: Effect.Effect<unknown, unknown>, times: number) =>
  Effect.repeat(Effect.exit(call), { times: times - 1 })

const listed = CircuitBoard.CircuitBoard.use((circuits) => circuits.list)

describe("CircuitBoard", () => {
  it.effect("lists nothing before any attempt", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* listed, [])
    }).pipe(board))

  it.effect("shows a circuit's failures, then its opening, its cooldown and its close", () =>
    Effect.gen(function*() {
      const target = Upstream.target({ failure_threshold: 3, cooldown_interval: COOLDOWN }, {
        override_params: { model: "gpt-4o" }
      })
      const { call, upstream } = yield* guarded(target)
      yield* TestClock.adjust(5_000)
      upstream.answer = Upstream.status(500)
      yield* attempt(call, 2)
      const [closed] = yield* listed
      assert.deepStrictEqual(closed, {
        id: CircuitKey.of(target),
        provider: "openai",
        host: "default",
        model: "gpt-4o",
        credential_id: CircuitKey.credentialId(target),
        state: "closed",
        retry_after_ms: null,
        probing: false,
        consecutive_openings: 0,
        failures: 2,
        opened_at: null,
        last_attempt_at: 5
      })

      yield* TestClock.adjust(1_000)
      yield* attempt(call, 1)
      const [open] = yield* listed
      assert.strictEqual(open?.state, "open")
      assert.strictEqual(open?.failures, 3)
      assert.strictEqual(open?.opened_at, 6)
      assert.strictEqual(open?.retry_after_ms, COOLDOWN)
      assert.strictEqual(open?.consecutive_openings, 1)

      yield* TestClock.adjust(10_000)
      assert.strictEqual((yield* listed)[0]?.retry_after_ms, COOLDOWN - 10_000)

      yield* TestClock.adjust(COOLDOWN)
      upstream.answer = Upstream.ok
      yield* call
      const [again] = yield* listed
      assert.strictEqual(again?.state, "closed")
      assert.strictEqual(again?.failures, 0)
      assert.strictEqual(again?.opened_at, null)
    }).pipe(board))

  it.effect("lists the most recently used circuit first, and never a secret", () =>
    Effect.gen(function*() {
      const first = yield* guarded(Upstream.target(undefined, { override_params: { model: "first" } }))
      const second = yield* guarded(Upstream.target(undefined, { override_params: { model: "second" } }))
      yield* first.call
      yield* TestClock.adjust(1_000)
      yield* second.call
      assert.deepStrictEqual((yield* listed).map((circuit) => circuit.model), ["second", "first"])
      yield* TestClock.adjust(1_000)
      yield* first.call
      const circuits = yield* listed
      assert.deepStrictEqual(circuits.map((circuit) => circuit.model), ["first", "second"])
      assert.notInclude(JSON.stringify(circuits), Upstream.SECRET)
    }).pipe(board))

  it.effect("counts a rejected attempt as use: a circuit another replica opened is listed", () =>
    Effect.gen(function*() {
      const target = Upstream.target({ failure_threshold: 1, cooldown_interval: COOLDOWN })
      const { call, upstream } = yield* guarded(target)
      upstream.answer = Upstream.status(500)
      yield* attempt(call, 1)
      yield* TestClock.adjust(2_000)
      yield* Effect.flip(call)
      const [open] = yield* listed
      assert.strictEqual(open?.state, "open")
      assert.strictEqual(open?.last_attempt_at, 2)
      assert.strictEqual(upstream.calls, 1)
    }).pipe(board))

  it.effect("forgets a circuit idle for an hour", () =>
    Effect.gen(function*() {
      const { call } = yield* guarded(Upstream.target())
      yield* call
      assert.lengthOf(yield* listed, 1)
      yield* TestClock.adjust(60 * 60 * 1000 + 1)
      assert.deepStrictEqual(yield* listed, [])
    }).pipe(board))

  it.effect(`keeps at most ${CircuitBoard.MAX_CIRCUITS} circuits, forgetting the least recently used`, () =>
    Effect.gen(function*() {
      for (let index = 0; index <= CircuitBoard.MAX_CIRCUITS; index++) {
        const { call } = yield* guarded(Upstream.target(undefined, { override_params: { model: `m-${index}` } }))
        yield* call
      }
      const circuits = yield* listed
      assert.lengthOf(circuits, CircuitBoard.MAX_CIRCUITS)
      assert.strictEqual(circuits[0]?.model, `m-${CircuitBoard.MAX_CIRCUITS}`)
      assert.strictEqual(circuits.at(-1)?.model, "m-1")
    }).pipe(board))
})
