/**
 * A Redis connection for a store on the request path. Commands are never queued while the
 * connection is down (node-redis' offline queue would hold each one for its 5 s command timeout):
 * they fail at once, and the client reconnects in the background, with backoff, for as long as it
 * lives. Building it does not wait for Redis to come up, so a gateway starts during an outage.
 *
 * It only sends commands (and scripts): it neither subscribes nor reserves connections.
 */
import { Duration, Effect, Layer, Redacted } from "effect"
import { Redis } from "effect/persistence"
import { ClientClosedError, ClientOfflineError, createClient, ErrorReply } from "redis"

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
export const isReply = (cause: unknown): boolean => cause instanceof ErrorReply

/**
 * Completes once the commands sent so far on a connection of {@link layer} are written to Redis's
 * socket, without waiting for their answers. node-redis writes the commands of one tick together
 * on its next `setImmediate`, and Node runs immediates in the order they were set: one set after
 * sending runs after that write. Redis applies one connection's commands in the order they
 * arrive, so whatever this process sends afterwards meets them applied.
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
export const written: Effect.Effect<void> = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

const describe = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const unsupported = (what: string) =>
  Effect.fail(new Redis.RedisError({ cause: new Error(`a store connection does not ${what}`) }))

/**
 * effect/persistence's `Redis` over a node-redis client at `url`, with the offline queue disabled
 * and background reconnect. Building waits at most {@link STARTUP_WAIT} for Redis and then goes on
 * without it; it fails only when `url` is not a Redis URL. The client is destroyed with the scope.
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
        Effect.try({
          try: () =>
            createClient({
              url,
              disableOfflineQueue: true,
              // no timer per command (node-redis' default 5 s, an AbortSignal each: ~10 µs of CPU a
              // command): every command of a store is bounded by its StoreOutage deadline instead
              commandOptions: { timeout: 0 },
              socket: { reconnectStrategy: reconnectDelay }
            }),
          catch: (cause) => new Redis.RedisError({ cause })
        }),
        // destroy, not close: close waits for the answers of a Redis that may never give them
        (client) => Effect.sync(() => client.destroy())
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
      const offline = (cause: unknown): unknown => {
        if (lastError === undefined) return cause
        return isReply(lastError) ? new Error(`not connected: ${describe(lastError)}`) : lastError
      }
      const send = <A = unknown>(command: string, ...args: ReadonlyArray<string>) =>
        Effect.tryPromise({
          try: () => client.sendCommand<A>([command, ...args]),
          catch: (cause) =>
            new Redis.RedisError({
              cause: cause instanceof ClientOfflineError || cause instanceof ClientClosedError ? offline(cause) : cause
            })
        })
      return yield* Redis.make({
        send,
        subscribe: () => unsupported("subscribe"),
        connect: unsupported("reserve connections")
      })
    })
  )
