import { assert, describe, it } from "@effect/vitest"
import { CircuitBreakerMiddleware, CircuitKey } from "@switchyard/circuit-breaker"
import { RedisCircuitStore } from "@switchyard/circuit-breaker/redis"
import { RedisServer } from "@switchyard/fake-providers"
import { StoreOutage } from "@switchyard/redis"
import { Context, Duration, Effect, Exit, Layer, Logger, Metric, Schedule } from "effect"
import { CircuitBreaker } from "effect/persistence"
import { randomUUID } from "node:crypto"
import * as Upstream from "./support/Upstream.ts"

/** The spec's bound on a store call while Redis is unreachable. */
const BOUND_MILLIS = 250

/** A redis-server of the test's own, killed when the test ends. */
const redisServer = (port?: number) =>
  Effect.acquireRelease(Effect.promise(() => RedisServer.start(port)), (server) => Effect.promise(server.kill))

/** One gateway process over the Redis at `url`: its store, and a target's upstream behind its circuit. */
const processAt = (url: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      RedisCircuitStore.layer({ url, prefix: `switchyard-test:outage:${randomUUID()}:` })
    )
    const store = Context.get(context, CircuitBreaker.CircuitBreakerStore)
    const middlewareFor = yield* Effect.provideContext(CircuitBreakerMiddleware.factory, context)
    const target = Upstream.target()
    const upstream = new Upstream.Upstream()
    const dispatch = (yield* middlewareFor(target, "config"))(upstream.dispatch)
    return { upstream, call: dispatch(Upstream.request), circuit: store.state(CircuitKey.of(target)) }
  })

/** Runs `effect` with every log line collected and a metric registry of its own. */
const observed = <A, E, R>(effect: (logs: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const logs: Array<string> = []
  const collect = Logger.make(({ message }) => {
    logs.push(Array.isArray(message) ? message.join(" ") : String(message))
  })
  return effect(logs).pipe(
    Effect.provide(Logger.layer([collect])),
    Effect.provideService(Metric.MetricRegistry, new Map())
  )
}

/** Real time this takes: the bound is on a real socket. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([elapsed, value]) => ({ millis: Duration.toMillis(elapsed), value }))

/** Polls `check` until it holds (the store reconnecting to a real process), for at most 10 s. */
const eventually = <E, R>(check: Effect.Effect<boolean, E, R>) =>
  check.pipe(
    Effect.filterOrFail((ok) => ok, () => "not yet"),
    Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
  )

/** Three failures (the threshold) in a row open the circuit, when they are recorded. */
const opens = (process: Effect.Success<ReturnType<typeof processAt>>) =>
  Effect.gen(function*() {
    process.upstream.answer = Upstream.status(500)
    for (let i = 0; i < 3; i++) yield* Effect.exit(process.call)
    return (yield* process.circuit)._tag === "Open"
  })

const count = (logs: ReadonlyArray<string>, text: string) => logs.filter((line) => line.includes(text)).length

/** `gateway_store_errors_total{store="circuit"}` (its export is tested in @switchyard/redis). */
const storeErrors = Effect.map(Metric.value(StoreOutage.storeErrors("circuit")), (state) => state.count)

describe("circuits in a redis-server of the test's own while it is down", () => {
  it.live("count as closed within 250 ms once Redis is killed, drop outcomes, and are recorded again once it is back", () =>
    observed((logs) =>
      Effect.gen(function*() {
        const server = yield* redisServer()
        const process = yield* processAt(server.url)
        assert.isTrue(yield* opens(process))
        process.upstream.answer = Upstream.ok
        assert.isTrue(Exit.isFailure(yield* Effect.exit(process.call)))

        yield* Effect.promise(server.kill)
        const read = yield* timed(process.circuit)
        assert.strictEqual(read.value._tag, "Closed")
        assert.isBelow(read.millis, BOUND_MILLIS)
        for (let i = 0; i < 3; i++) {
          const attempt = yield* timed(process.call)
          assert.strictEqual(attempt.value.status, 200)
          assert.isBelow(attempt.millis, BOUND_MILLIS)
        }
        // failures are not recorded: the circuit never opens while Redis is down
        process.upstream.answer = Upstream.status(500)
        for (let i = 0; i < 4; i++) {
          const attempt = yield* timed(Effect.flip(process.call))
          assert.strictEqual(attempt.value._tag, "UpstreamStatus")
          assert.isBelow(attempt.millis, BOUND_MILLIS)
        }

        yield* Effect.promise(server.restart)
        yield* eventually(opens(process))

        assert.strictEqual(count(logs, "circuit store: Redis unreachable"), 1)
        assert.strictEqual(count(logs, "circuit store: Redis answers again"), 1)
        // the breaker itself never logs per attempt: no attempt reached it with a store error
        assert.strictEqual(count(logs, "CircuitBreaker"), 0)
        assert.isAtLeast(yield* storeErrors, 8)
      })
    ).pipe(Effect.scoped))

  it.live("count as closed within 250 ms while Redis does not answer, and are recorded again once it does", () =>
    observed((logs) =>
      Effect.gen(function*() {
        const server = yield* redisServer()
        const process = yield* processAt(server.url)
        yield* process.circuit

        server.pause()
        const attempt = yield* timed(process.call)
        assert.strictEqual(attempt.value.status, 200)
        assert.isBelow(attempt.millis, BOUND_MILLIS)
        const read = yield* timed(process.circuit)
        assert.strictEqual(read.value._tag, "Closed")
        assert.isBelow(read.millis, BOUND_MILLIS)

        server.resume()
        yield* eventually(opens(process))
        assert.include(logs.join("\n"), "circuit store: Redis unreachable (no answer within 150ms)")
      })
    ).pipe(Effect.scoped))

  it.live("build while Redis is down at start, count as closed, and are recorded once Redis starts", () =>
    observed(() =>
      Effect.gen(function*() {
        const port = yield* Effect.promise(RedisServer.unusedPort)
        const built = yield* timed(processAt(`redis://127.0.0.1:${port}`))
        assert.isBelow(built.millis, 1_500)
        const process = built.value
        const attempt = yield* timed(process.call)
        assert.strictEqual(attempt.value.status, 200)
        assert.isBelow(attempt.millis, BOUND_MILLIS)

        yield* redisServer(port)
        yield* eventually(opens(process))
      })
    ).pipe(Effect.scoped))
})
