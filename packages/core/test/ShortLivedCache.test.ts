import { assert, describe, it } from "@effect/vitest"
import { ShortLivedCache } from "@switchyard/core"
import { Clock, Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

const counting = <A>(value: A) => {
  let reads = 0
  return { load: () => Effect.sync(() => (reads++, value)), reads: () => reads }
}

describe("ShortLivedCache", () => {
  it.effect("reads once within the time to live, again after it, and at once after an invalidation", () =>
    Effect.gen(function*() {
      const cache = new ShortLivedCache.ShortLivedCache<string>({ capacity: 8, ttlMs: 1_000 })
      const source = counting("v")
      assert.strictEqual(yield* cache.through("a", source.load), "v")
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(yield* cache.through("a", source.load), "v")
      assert.strictEqual(cache.peek("a", yield* Clock.currentTimeMillis), "v")
      assert.strictEqual(source.reads(), 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(cache.peek("a", yield* Clock.currentTimeMillis), undefined)
      yield* cache.through("a", source.load)
      assert.strictEqual(source.reads(), 2)
      cache.invalidate("a")
      yield* cache.through("a", source.load)
      assert.strictEqual(source.reads(), 3)
      cache.invalidateAll()
      assert.strictEqual(cache.peek("a", yield* Clock.currentTimeMillis), undefined)
    }))

  it.effect("does not keep what a read started before an invalidation brings back: the next request reads again", () =>
    Effect.gen(function*() {
      const cache = new ShortLivedCache.ShortLivedCache<string>({ capacity: 8, ttlMs: 1_000 })
      const release = yield* Deferred.make<void>()
      const reading = yield* Effect.forkChild(cache.through("ws", () => Effect.as(Deferred.await(release), "before")))
      yield* Effect.yieldNow
      // the object changes (a policy is created) while the read is in flight
      cache.invalidate("ws")
      yield* Deferred.succeed(release, undefined)
      assert.strictEqual(yield* Fiber.join(reading), "before")
      assert.strictEqual(cache.peek("ws", yield* Clock.currentTimeMillis), undefined)
      const after = counting("after")
      assert.strictEqual(yield* cache.through("ws", after.load), "after")
      // what that read brought back is kept
      assert.strictEqual(yield* cache.through("ws", () => Effect.die("read again")), "after")
      assert.strictEqual(after.reads(), 1)
    }))

  it.effect("does not keep a read that fails", () =>
    Effect.gen(function*() {
      const cache = new ShortLivedCache.ShortLivedCache<string>({ capacity: 8, ttlMs: 1_000 })
      const failed = yield* Effect.flip(cache.through("a", () => Effect.fail("down")))
      assert.strictEqual(failed, "down")
      assert.strictEqual(cache.peek("a", yield* Clock.currentTimeMillis), undefined)
    }))
})
