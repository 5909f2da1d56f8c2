import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples, RedisServer } from "@switchyard/fake-providers"
import { RedisConnection } from "@switchyard/redis"
import { Context, Effect, Layer } from "effect"
import { Redis } from "effect/persistence"
import { Answers, AnswersLive } from "../examples/GuardedStore.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.live("GuardedStore: answers from Redis, passes a reply error on, and misses while Redis is down", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => RedisServer.start()),
        (server) => Effect.promise(server.kill)
      )
      const writer = Context.get(yield* Layer.build(RedisConnection.layer({ url: server.url })), Redis.Redis)
      yield* writer.send("SET", "greeting", "hello")
      yield* writer.send("LPUSH", "list", "item")
      const answers = Context.get(yield* Layer.build(AnswersLive(server.url)), Answers)
      assert.strictEqual(yield* answers.get("greeting"), "hello")
      const reply = yield* Effect.flip(answers.get("list"))
      assert.isTrue(RedisConnection.isReply(reply.cause))
      yield* Effect.promise(server.kill)
      assert.isNull(yield* answers.get("greeting"))
    }).pipe(Effect.scoped))
})
