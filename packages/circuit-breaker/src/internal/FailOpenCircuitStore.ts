/**
 * effect/persistence's Redis `CircuitBreakerStore`, made to never hold an attempt on Redis: while
 * Redis is down or slow (see `StoreOutage` of `@switchyard/redis`), reading a circuit admits the attempt as if the
 * circuit were closed, and its outcome is dropped rather than recorded.
 */
import { RedisConnection, StoreOutage } from "@switchyard/redis"
import { type Duration, Effect, Layer } from "effect"
import { CircuitBreaker, Redis } from "effect/persistence"

/** Stamped on admissions made without Redis; no circuit holds it, so their outcomes are dropped. */
const UNRECORDED = -1

const unrecorded: CircuitBreaker.Admission = {
  generation: UNRECORDED,
  probe: false,
  consecutiveOpenings: 0,
  transition: undefined
}

/** The cause of a store failure that did not reach Redis; `undefined` for every other error. */
const unreachable = (error: CircuitBreaker.CircuitBreakerError): unknown =>
  error.reason._tag === "CircuitBreakerStoreError" && !RedisConnection.isReply(error.reason.cause)
    ? error.reason.cause
    : undefined

/** Circuits under `prefix` in the app's `Redis`, failing open while it is unreachable. */
export const layer = (
  options: { readonly prefix: string; readonly deadline?: Duration.Input | undefined }
): Layer.Layer<CircuitBreaker.CircuitBreakerStore, never, Redis.Redis> =>
  Layer.effect(
    CircuitBreaker.CircuitBreakerStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      // the Redis store below, which this one wraps under the same service
      const store = yield* CircuitBreaker.CircuitBreakerStore
      const outage = yield* StoreOutage.make({
        store: "circuit",
        whileDown: "circuits count as closed and outcomes are not recorded",
        ping: redis.send("PING"),
        deadline: options.deadline
      })
      return CircuitBreaker.CircuitBreakerStore.of({
        admit: (key) => outage.guard(store.admit(key), { fallback: unrecorded, unreachable }),
        record: (outcome) =>
          outcome.generation === UNRECORDED
            ? Effect.undefined
            : outage.guard(store.record(outcome), { fallback: undefined, unreachable }),
        state: (key) => outage.guard(store.state(key), { fallback: { _tag: "Closed", key }, unreachable })
      })
    })
  ).pipe(Layer.provide(CircuitBreaker.layerStoreRedis({ prefix: options.prefix })))
