/**
 * A Redis connection for a store on the request path. While no command awaits its answer, each
 * command is written to Redis's socket within its send; while answers are outstanding, a turn of
 * the event loop's commands are written together at its end (see internal/TurnWrites.ts). Redis
 * applies one connection's commands in the order they arrive, so whatever this process sends once
 * a command is written, on any connection, meets it applied ({@link written}). Commands are never
 * queued while the connection is down: they fail at once, and the client reconnects in the
 * background, with backoff, for as long as it lives. Building it does not wait for Redis to come
 * up, so a gateway starts during an outage.
 *
 * It only sends commands (and scripts): it neither subscribes nor reserves connections.
 */
import { Duration, Effect, Layer, Redacted } from "effect"
import { Redis } from "effect/persistence"
import { Redis as IoRedis, ReplyError } from "ioredis"
import * as TurnWrites from "./internal/TurnWrites.ts"

/** How long building waits for the first connection before going on without it. */
export const STARTUP_WAIT = Duration.seconds(1)

/** Reconnect delays: 50 ms doubling to 1 s, with jitter so that replicas do not reconnect in step. */
const reconnectDelay = (retries: number): number =>
  Math.min(50 * 2 ** Math.min(retries, 5), 1_000) + Math.floor(Math.random() * 50)

/**
 * Whether a failure is an answer from Redis (a reply error such as `WRONGTYPE`), rather than
 * Redis not being reached. A store passes the first on and treats the second as an outage.
 *
 * @example
 * import { RedisConnection } from "@switchyard/redis"
 * import type { Redis } from "effect/persistence"
 *
 * const unreachable = (error: Redis.RedisError): unknown =>
 *   RedisConnection.isReply(error.cause) ? undefined : error.cause
 */
export const isReply = (cause: unknown): boolean => cause instanceof ReplyError

/**
 * Completes once the commands sent so far on connections of {@link layer} are written to Redis's
 * socket, without waiting for their answers: at once on a connection that had none outstanding
 * (it wrote them within their sends), else when the current turn of the event loop ends. Redis
 * applies one connection's commands in the order they arrive, so whatever this process sends
 * afterwards meets them applied: a settlement written before an answer is met by the client's next
 * request, on this replica or another.
 *
 * @example
 * import { RedisConnection } from "@switchyard/redis"
 * import { Effect, FiberSet } from "effect"
 * import { Redis } from "effect/persistence"
 *
 * // INCR is on its way (its answer is awaited in the background) before the next step runs
 * const sent = Effect.gen(function*() {
 *   const redis = yield* Redis.Redis
 *   const run = yield* FiberSet.makeRuntime()
 *   run(redis.send("INCR", "visits"))
 *   yield* RedisConnection.written
 * })
 */
export const written: Effect.Effect<void> = TurnWrites.written

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const unsupported = (what: string) =>
  Effect.fail(new Redis.RedisError({ cause: new Error(`a store connection does not ${what}`) }))

/** The protocols of a Redis URL; anything else is refused when the layer is built. */
const REDIS_PROTOCOLS = new Set(["redis:", "rediss:"])

const clientOf = (url: string): IoRedis => {
  const protocol = new URL(url).protocol
  if (!REDIS_PROTOCOLS.has(protocol)) throw new Error(`${protocol} is not a valid Redis protocol`)
  return new IoRedis(url, {
    lazyConnect: true,
    // a command sent while the connection is down fails at once rather than waiting for it
    enableOfflineQueue: false,
    // commands in flight when the connection drops fail (no resend after reconnect): a store
    // must not apply a reservation twice, nor learn of it after its deadline
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay
  })
}

/**
 * effect/persistence's `Redis` over an ioredis client at `url`, with the offline queue disabled
 * and background reconnect. Building waits at most {@link STARTUP_WAIT} for Redis and then goes on
 * without it; it fails only when `url` is not a Redis URL. The client is closed with the scope.
 *
 * @example
 * import { RedisConnection } from "@switchyard/redis"
 * import { Effect } from "effect"
 * import { Redis } from "effect/persistence"
 *
 * // "PONG"; while Redis is down, a RedisError at once rather than after a timeout
 * const pong = Redis.Redis.use((redis) => redis.send<string>("PING")).pipe(
 *   Effect.provide(RedisConnection.layer({ url: "redis://127.0.0.1:6379" }))
 * )
 */
export const layer = (
  options: { readonly url: string | Redacted.Redacted<string> }
): Layer.Layer<Redis.Redis, Redis.RedisError> =>
  Layer.effect(
    Redis.Redis,
    Effect.gen(function*() {
      const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
      const client = yield* Effect.acquireRelease(
        Effect.try({ try: () => clientOf(url), catch: (cause) => new Redis.RedisError({ cause }) }),
        // disconnect, not quit: quit waits for the answers of a Redis that may never give them
        (client) => Effect.sync(() => client.disconnect())
      )
      // the socket's last error explains why commands cannot be sent; the store logs it once
      let lastError: unknown
      client.on("error", (cause: unknown) => {
        lastError = cause
      })
      const settled = new Promise<void>((resolve) => {
        client.once("ready", resolve)
        client.once("error", () => resolve())
      })
      // never awaited beyond STARTUP_WAIT: the client keeps reconnecting in the background
      client.connect().catch(() => undefined)
      yield* Effect.promise(() => settled).pipe(Effect.timeoutOption(STARTUP_WAIT))

      // why a command could not be sent; never a reply error (a refused AUTH), which is no outage
      const offline = (): unknown => {
        if (lastError === undefined) return new Error(`not connected to Redis (${client.status})`)
        return isReply(lastError) ? new Error(`not connected: ${describe(lastError)}`) : lastError
      }
      const turns = TurnWrites.make(() => client.commandQueue.length)
      // checked when the command runs, not when its effect is built: a store may build one effect
      // (its PING probe) and run it many times
      const send = <A = unknown>(command: string, ...args: ReadonlyArray<string>) =>
        Effect.suspend(() =>
          client.status === "ready"
            ? Effect.tryPromise({
              try: () => {
                turns.beforeSend(client.stream)
                return client.call(command, ...args) as Promise<A>
              },
              catch: (cause) => new Redis.RedisError({ cause })
            })
            : Effect.fail(new Redis.RedisError({ cause: offline() }))
        )
      return yield* Redis.make({
        send,
        subscribe: () => unsupported("subscribe"),
        connect: unsupported("reserve connections")
      })
    })
  )
