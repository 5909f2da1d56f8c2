/**
 * Where the pipeline keeps what replicas share: the cache and circuit stores, and the usage
 * counters and rate windows, in memory and the gateway's database, or in Redis when a URL is
 * given. The Redis modules are imported only then, so a gateway kept in memory needs neither
 * `@switchyard/redis` (an optional peer) nor a Redis client.
 */
import { CacheStore } from "@switchyard/cache"
import { CircuitBoard, CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import { Database, type SqliteWriter } from "@switchyard/storage"
import { LocalWindows, UsageCounters } from "@switchyard/usage-limits"
import { Data, Effect, Layer, type Redacted } from "effect"
import type { RateLimiter, Redis } from "effect/persistence"
import type { SqlClient } from "effect/sql"

/** A start-up error: Redis was asked for, but the optional peer that connects to it is missing. */
export class MissingRedisPackage extends Data.TaggedError("MissingRedisPackage")<{
  readonly message: string
  readonly cause: unknown
}> {}

/**
 * The cache and circuit stores in Redis. They are imported only when a Redis URL is given, so a
 * gateway kept in memory needs neither `@switchyard/redis` (an optional peer) nor a Redis client.
 */
const redisStores = (url: Redacted.Redacted<string>, deadlineMs: number | undefined) =>
  Layer.unwrap(
    Effect.tryPromise({
      try: () => Promise.all([import("@switchyard/cache/redis"), import("@switchyard/circuit-breaker/redis")]),
      catch: (cause) =>
        new MissingRedisPackage({
          message: "REDIS_URL (redisUrl) is set but the Redis stores could not be loaded: install " +
            `@switchyard/redis next to @switchyard/gateway (${String(cause)})`,
          cause
        })
    }).pipe(
      Effect.map(([cache, circuits]) =>
        Layer.merge(
          cache.RedisCacheStore.layer({ url, deadline: deadlineMs }),
          circuits.RedisCircuitStore.layer({ url, deadline: deadlineMs })
        )
      )
    )
  )

/**
 * Usage counters and rate windows in Redis when it is configured; otherwise rate windows in memory
 * and counters in the gateway's database: kept in memory and written in batches on this process's
 * own SQLite, taken row by row on Postgres (shared by replicas). Like the other Redis stores,
 * imported only for a Redis URL.
 */
/** What {@link usageCounters} builds, also with a reservation lease provided to it. */
export type CountersLayer = Layer.Layer<
  UsageCounters.UsageCounters | RateLimiter.RateLimiterStore,
  MissingRedisPackage | Redis.RedisError,
  Database.Dialect | SqlClient.SqlClient
>

/** A store whose writes go through the SQLite writer thread on SQLite, or `onClient` elsewhere. */
export type OnWriterThread = <A, B>(
  threaded: Layer.Layer<A, never, B | SqliteWriter.SqliteWriter>,
  onClient: Layer.Layer<A, never, B>
) => Layer.Layer<A, never, B | Database.Dialect>

/** {@link OnWriterThread} with `sqliteWriter` (one layer, so one thread however many stores use it). */
export const onWriterThreadOf =
  (sqliteWriter: Layer.Layer<SqliteWriter.SqliteWriter>): OnWriterThread => (threaded, onClient) =>
    Layer.unwrap(
      Database.Dialect.useSync((dialect) =>
        dialect.name === "sqlite" ? Layer.provide(threaded, sqliteWriter) : onClient
      )
    )

export const usageCounters = (
  options: { readonly redisUrl?: Redacted.Redacted<string> | undefined },
  onWriterThread: OnWriterThread
): CountersLayer => {
  const url = options.redisUrl
  if (url === undefined) {
    return Layer.merge(
      onWriterThread(UsageCounters.UsageCounters.layerLocalSqliteWriter, UsageCounters.UsageCounters.layerSql),
      LocalWindows.layer
    )
  }
  return Layer.unwrap(
    Effect.tryPromise({
      try: () => import("@switchyard/usage-limits/redis"),
      catch: (cause) =>
        new MissingRedisPackage({
          message: "REDIS_URL (redisUrl) is set but the Redis usage counters could not be loaded: install " +
            `@switchyard/redis next to @switchyard/gateway (${String(cause)})`,
          cause
        })
    }).pipe(Effect.map((redis) => redis.RedisUsageCounters.layerStores({ url })))
  )
}

/**
 * The cache and circuit stores, in memory or in Redis; the circuits watched by the board that
 * `GET /v1/circuits` reads (its store wins over the one it watches).
 */
export const cacheAndCircuits = (
  options: { readonly redisUrl?: Redacted.Redacted<string> | undefined; readonly redisDeadlineMs?: number | undefined }
) =>
  Layer.provideMerge(
    CircuitBoard.layer,
    options.redisUrl === undefined
      ? Layer.merge(CacheStore.layerMemory(), CircuitBreakerMiddleware.layerMemory)
      : redisStores(options.redisUrl, options.redisDeadlineMs)
  )

/** What {@link cacheAndCircuits} builds. */
export type CacheAndCircuits = ReturnType<typeof cacheAndCircuits>
