import { assert, describe, it } from "@effect/vitest"
import { RedisServer } from "@switchyard/fake-providers"
import { RedisConnection } from "@switchyard/redis"
import { Context, Duration, Effect, Fiber, Layer, Option, Queue, Redacted, Schedule } from "effect"
import { Redis } from "effect/persistence"

/** The spec's bound on a store call while Redis is unreachable. */
const BOUND_MILLIS = 250

/** A redis-server of the test's own, killed when the test ends. */
const redisServer = (port?: number) =>
  Effect.acquireRelease(Effect.promise(() => RedisServer.start(port)), (server) => Effect.promise(server.kill))

/** A connection to `url`, built in the test's scope. */
const connectionTo = (url: string | Redacted.Redacted<string>) =>
  Effect.map(Layer.build(RedisConnection.layer({ url })), Context.get(Redis.Redis))

/** Real time this takes: the bound is on a real socket. */
const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.timed(effect), ([elapsed, value]) => ({ millis: Duration.toMillis(elapsed), value }))

/** Retries `effect` (the client reconnecting to a real process) for at most 10 s. */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.retry(effect, Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))

describe("RedisConnection", () => {
  it.live("sends commands to Redis, and passes on an error Redis answers with as a reply", () =>
    Effect.gen(function*() {
      const server = yield* redisServer()
      const redis = yield* connectionTo(Redacted.make(server.url))
      yield* redis.send("SET", "answer", "stored")
      assert.strictEqual(yield* redis.send<string>("GET", "answer"), "stored")
      const error = yield* Effect.flip(redis.send("LPUSH", "answer", "item"))
      assert.isTrue(RedisConnection.isReply(error.cause))
      assert.include(String(error.cause), "WRONGTYPE")
    }).pipe(Effect.scoped))

  it.live("fails each command at once while Redis is down, then sends again once it is back", () =>
    Effect.gen(function*() {
      const server = yield* redisServer()
      const redis = yield* connectionTo(server.url)
      assert.strictEqual(yield* redis.send<string>("PING"), "PONG")

      yield* Effect.promise(server.kill)
      for (let i = 0; i < 5; i++) {
        const ping = yield* timed(Effect.flip(redis.send("PING")))
        assert.isBelow(ping.millis, BOUND_MILLIS)
        assert.isFalse(RedisConnection.isReply(ping.value.cause))
      }
      // once the client has seen the socket fail, the cause is that failure, not "client offline"
      const refused = yield* eventually(
        Effect.flip(redis.send("PING")).pipe(
          Effect.filterOrFail((error) => String(error.cause).includes("ECONNREFUSED"), () => "not yet")
        )
      )
      assert.isFalse(RedisConnection.isReply(refused.cause))

      yield* Effect.promise(server.restart)
      assert.strictEqual(yield* eventually(redis.send<string>("PING")), "PONG")
    }).pipe(Effect.scoped))

  it.live("fails a command in flight when the connection drops, and does not send it again", () =>
    Effect.gen(function*() {
      const server = yield* redisServer()
      const redis = yield* connectionTo(server.url)
      assert.strictEqual(yield* redis.send<string>("PING"), "PONG")

      server.pause()
      const increment = yield* Effect.forkChild(redis.send<number>("INCR", "visits"), { startImmediately: true })
      yield* Effect.promise(server.kill)
      const dropped = yield* timed(Effect.flip(Fiber.join(increment)))
      assert.isBelow(dropped.millis, BOUND_MILLIS)
      assert.isFalse(RedisConnection.isReply(dropped.value.cause))

      // a fresh Redis on the same port: the INCR is not applied there after the reconnect
      yield* Effect.promise(server.restart)
      assert.strictEqual(yield* eventually(redis.send<string>("PING")), "PONG")
      assert.isNull(yield* redis.send<string | null>("GET", "visits"))
    }).pipe(Effect.scoped))

  it.live("builds within about a second while Redis is down, and sends once Redis starts", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(RedisServer.unusedPort)
      const built = yield* timed(connectionTo(`redis://127.0.0.1:${port}`))
      assert.isBelow(built.millis, Duration.toMillis(RedisConnection.STARTUP_WAIT) + 500)
      const redis = built.value
      const ping = yield* timed(Effect.flip(redis.send("PING")))
      assert.isBelow(ping.millis, BOUND_MILLIS)
      assert.isFalse(RedisConnection.isReply(ping.value.cause))

      yield* redisServer(port)
      assert.strictEqual(yield* eventually(redis.send<string>("PING")), "PONG")
    }).pipe(Effect.scoped))

  it.live("fails to build when the URL is not a Redis URL", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(connectionTo("http://127.0.0.1:6379"))
      assert.strictEqual(error._tag, "RedisError")
      assert.include(String(error.cause), "not a valid Redis protocol")
    }).pipe(Effect.scoped))

  it.live("neither subscribes nor reserves connections", () =>
    Effect.gen(function*() {
      const server = yield* redisServer()
      const redis = yield* connectionTo(server.url)
      const messages = yield* redis.subscribe("events")
      assert.include(String((yield* Effect.flip(Queue.take(messages))).cause), "does not subscribe")
      assert.include(String((yield* Effect.flip(redis.reserve)).cause), "does not reserve connections")
    }).pipe(Effect.scoped))

  it.live("`written` completes once what was sent is on Redis's socket, before Redis answers, ahead of later commands", () =>
    Effect.gen(function*() {
      const server = yield* redisServer()
      const redis = yield* connectionTo(server.url)
      const other = yield* connectionTo(server.url)
      assert.strictEqual(yield* redis.send<string>("PING"), "PONG")
      assert.strictEqual(yield* other.send<string>("PING"), "PONG")

      // a stopped Redis answers nothing
      server.pause()
      // idle (no answer outstanding): written within the send
      const increment = yield* Effect.forkChild(redis.send<number>("INCR", "visits"), { startImmediately: true })
      // a later turn, with the INCR's answer outstanding: held until the turn ends
      yield* Effect.sleep("1 millis")
      const set = yield* Effect.forkChild(redis.send<string>("SET", "seen", "yes"), { startImmediately: true })
      const sent = yield* timed(Effect.timeoutOption(RedisConnection.written, "1 second"))
      assert.isTrue(Option.isSome(sent.value), "written waited for an answer")
      assert.isUndefined(increment.pollUnsafe(), "the answer cannot have come from a stopped Redis")
      assert.isUndefined(set.pollUnsafe(), "the answer cannot have come from a stopped Redis")

      // sent after `written`, on another connection: Redis applies the INCR and the SET first
      const read = yield* Effect.forkChild(other.send<ReadonlyArray<string>>("MGET", "visits", "seen"), {
        startImmediately: true
      })
      server.resume()
      assert.strictEqual(yield* Fiber.join(increment), 1)
      assert.strictEqual(yield* Fiber.join(set), "OK")
      assert.deepStrictEqual(yield* Fiber.join(read), ["1", "yes"])
    }).pipe(Effect.scoped))
})
