/**
 * A `Redis` that cannot be reached: every command fails at once, as on a client with no
 * connection, and is recorded.
 */
import { Effect, Layer } from "effect"
import { Redis } from "effect/persistence"

const refused = Effect.fail(new Redis.RedisError({ cause: new Error("connect ECONNREFUSED 127.0.0.1:6379") }))

export class UnreachableRedis {
  /** The commands sent so far, without their arguments. */
  readonly sent: Array<string> = []

  readonly layer: Layer.Layer<Redis.Redis> = Layer.effect(
    Redis.Redis,
    Redis.make({
      send: (command) =>
        Effect.suspend(() => {
          this.sent.push(command)
          return refused
        }),
      subscribe: () => refused,
      connect: refused
    })
  )
}
