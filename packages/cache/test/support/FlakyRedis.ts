/**
 * A `Redis` in front of a real one that the test can make refuse commands (as a client with no
 * connection does) or stop answering, and that records the commands it was sent.
 */
import { Effect, Layer } from "effect"
import { Redis } from "effect/persistence"

export type Mode = "answering" | "refusing" | "silent"

export class FlakyRedis {
  mode: Mode = "answering"
  readonly sent: Array<string> = []

  /** `Redis` over `inner` (only `send` goes through the fault). */
  layer(inner: Redis.Redis["Service"]): Layer.Layer<Redis.Redis> {
    const send = <A = unknown>(command: string, ...args: ReadonlyArray<string>): Effect.Effect<A, Redis.RedisError> =>
      Effect.suspend(() => {
        this.sent.push(command)
        switch (this.mode) {
          case "answering":
            return inner.send<A>(command, ...args)
          case "refusing":
            return Effect.fail(new Redis.RedisError({ cause: new Error("connect ECONNREFUSED 127.0.0.1:6379") }))
          case "silent":
            return Effect.never
        }
      })
    return Layer.succeed(Redis.Redis, Redis.Redis.of({ ...inner, send }))
  }

  /** How many of the commands sent so far were `command`. */
  count(command: string): number {
    return this.sent.filter((sent) => sent === command).length
  }
}
