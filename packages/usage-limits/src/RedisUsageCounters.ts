/**
 * Usage counters in Redis, shared by every replica: one hash per policy, epoch and period
 * (`<prefix>{<workspace>}:<policy>:<epoch>:<period>`) with, per value key, its settled usage
 * (`u:`), open reservations (`r:`) and alert mark (`a:`), and beside it a sorted set (`…:leases`)
 * of the open reservations by the time their lease lapses. Reserving and settling are Lua
 * scripts, so each runs as one atomic step on the server: a reservation first gives back the
 * lapsed reservations of the counters it touches (their process died before settling), then checks
 * every counter and takes all of them or none. A `periodic_reset` policy's keys expire a lease
 * and {@link PERIOD_GRACE} after their period ends, set by the same scripts that write them; a
 * cumulative policy's never do. The lapsed leases of counters no request touches again are given
 * back by a background sweep after reservations, one bounded `SCAN` page of `…:leases` keys a run
 * (on Redis Cluster it reaches the node its connection talks to).
 *
 * Every key of one script carries its workspace as hash tag (`{…}`): a request only meets its
 * workspace's policies, so each script's keys share one slot and the scripts are valid on Redis
 * Cluster, spreading workspaces over its nodes.
 *
 * No request waits long on an unreachable Redis: each call has a deadline ({@link DEADLINE}), and
 * while Redis is down calls fail at once (`CounterStoreError`, which
 * `GATEWAY_LIMITS_ON_STORE_ERROR` turns into a 503 or a logged, uncounted pass) until a background
 * `PING` finds it again. It never falls back to counting in one process.
 *
 * @example
 * import { RedisUsageCounters } from "@switchyard/usage-limits/redis"
 * const counters = RedisUsageCounters.layer({ url: "redis://127.0.0.1:6379" })
 */
import { RedisConnection, StoreOutage } from "@switchyard/redis"
import { Clock, Duration, Effect, FiberSet, Layer, type Redacted, Schema, SchemaGetter } from "effect"
import { RateLimiter, Redis } from "effect/persistence"
import * as LeaseSweep from "./internal/LeaseSweep.ts"
import {
  CounterStoreError,
  type CounterUsage,
  reservationIds,
  ReservationLease,
  type ReserveResult,
  type Settlement,
  UsageCounters
} from "./UsageCounters.ts"

/**
 * How long a counter or window operation may wait on Redis before Redis counts as down. Longer
 * than the cache's: a false outage here refuses requests (503 under `closed`), and a burst of
 * requests on a busy machine queues commands past 150 ms (measured: 200 at once on 2 CPUs).
 */
export const DEADLINE = Duration.seconds(1)

/** Where counters live in Redis unless told otherwise. */
export const DEFAULT_PREFIX = "switchyard:usage:"

/** A counter's hash; its workspace is the hash tag, so that one request's keys share a Cluster slot. */
export const counterKey = (prefix: string, workspaceId: string, counter: string): string =>
  `${prefix}{${workspaceId}}:${counter}`

/** Loaded once and run by its SHA (`EVALSHA`): the request path sends only keys and arguments. */
const script = <Result>(lua: string) =>
  Redis.script((keys: ReadonlyArray<string>, args: ReadonlyArray<string>) => [...keys, ...args], {
    lua,
    numberOfKeys: (keys) => keys.length
  }).withReturnType<Result>()

/**
 * How long a periodic counter outlives its period: a request reserved just before the period
 * ended settles on that period's counter up to a lease later (a long stream later still), and
 * replicas' clocks differ a little. A cumulative counter never expires.
 */
export const PERIOD_GRACE = Duration.days(1)

/**
 * Lua: gives back the leases of one counter that lapsed by `now` (their process died before
 * settling), and answers how many.
 */
const GIVE_BACK_LAPSED = `
local function giveBackLapsed(hash, leases, now)
  local lapsed = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, lease in ipairs(lapsed) do
    local amount, field = string.match(lease, '^[^|]*|([^|]*)|(.*)$')
    redis.call('HINCRBYFLOAT', hash, 'r:' .. field, -tonumber(amount))
  end
  if #lapsed > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end
  return #lapsed
end`

/** KEYS: a counter's hash and its leases; ARGV: now. The lease sweep's step on one counter. */
const GIVE_BACK = script<number>(`${GIVE_BACK_LAPSED}
return giveBackLapsed(KEYS[1], KEYS[2], ARGV[1])`)

/** How many keys one run of the lease sweep asks `SCAN` to look at. */
const SWEEP_SCAN_COUNT = 1_000

const LEASES_SUFFIX = ":leases"

/** `SCAN` answers the next cursor and a page of keys. */
const decodeScanPage = Schema.decodeUnknownEffect(Schema.Tuple([Schema.String, Schema.Array(Schema.String)]))

/** `text` as a `SCAN MATCH` pattern that matches only itself. */
const literalPattern = (text: string): string => text.replace(/[*?[\]\\]/g, (match) => `\\${match}`)

/**
 * KEYS: per counter its hash and its leases; ARGV: now, the lease's end, the reservation's id, then
 * per counter its value key, limit, amount and the milliseconds until both keys may expire ("" for
 * never). A lease is a member `<id>|<amount>|<value key>` scored by its end. Answers 0, or the
 * refusing counter's position.
 */
const RESERVE = script<number>(`${GIVE_BACK_LAPSED}
local now = ARGV[1]
for i = 1, #KEYS / 2 do giveBackLapsed(KEYS[2 * i - 1], KEYS[2 * i], now) end
for i = 1, #KEYS / 2 do
  local field = ARGV[4 * i]
  local used = tonumber(redis.call('HGET', KEYS[2 * i - 1], 'u:' .. field) or '0')
  local reserved = tonumber(redis.call('HGET', KEYS[2 * i - 1], 'r:' .. field) or '0')
  if used + reserved >= tonumber(ARGV[4 * i + 1]) then return i end
end
for i = 1, #KEYS / 2 do
  local field = ARGV[4 * i]
  redis.call('HINCRBYFLOAT', KEYS[2 * i - 1], 'r:' .. field, ARGV[4 * i + 2])
  redis.call('ZADD', KEYS[2 * i], ARGV[2], ARGV[3] .. '|' .. ARGV[4 * i + 2] .. '|' .. field)
  local expires = ARGV[4 * i + 3]
  if expires ~= '' then
    redis.call('PEXPIRE', KEYS[2 * i - 1], expires)
    redis.call('PEXPIRE', KEYS[2 * i], expires)
  end
end
return 0`)

/**
 * KEYS: per counter its hash and its leases; ARGV: the reservation's id, then per counter its value
 * key, reserved, used, alert threshold ("" for none) and the milliseconds until its hash may expire
 * ("" for never). A reservation whose lease is gone was given back already: only its usage is
 * added. Answers the positions whose alert this call raised.
 */
const SETTLE = script<ReadonlyArray<number>>(`
local crossed = {}
for i = 1, #KEYS / 2 do
  local field = ARGV[5 * i - 3]
  local reserved = ARGV[5 * i - 2]
  if redis.call('ZREM', KEYS[2 * i], ARGV[1] .. '|' .. reserved .. '|' .. field) == 1 then
    redis.call('HINCRBYFLOAT', KEYS[2 * i - 1], 'r:' .. field, -tonumber(reserved))
  end
  local used = tonumber(redis.call('HINCRBYFLOAT', KEYS[2 * i - 1], 'u:' .. field, ARGV[5 * i - 1]))
  local threshold = ARGV[5 * i]
  if threshold ~= '' and tonumber(ARGV[5 * i - 1]) > 0 and used >= tonumber(threshold)
    and redis.call('HSETNX', KEYS[2 * i - 1], 'a:' .. field, '1') == 1 then
    crossed[#crossed + 1] = i
  end
  -- the hash may have expired before a late settlement wrote it again: it expires again
  if ARGV[5 * i + 1] ~= '' then redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[5 * i + 1]) end
end
return crossed`)

/** The cause of a failure that did not reach Redis; `undefined` when Redis answered with it. */
const unreachable = (error: Redis.RedisError): unknown => RedisConnection.isReply(error.cause) ? undefined : error.cause

/** Answered by the outage guard instead of an operation that could not reach Redis. */
const DOWN = Symbol("down")

/** `HGETALL` answers a flat list of fields and values (RESP2) or a map (RESP3, node-redis's default). */
const HashFields = Schema.Union([
  Schema.Record(Schema.String, Schema.String),
  Schema.Array(Schema.String).pipe(
    Schema.decodeTo(Schema.Record(Schema.String, Schema.String), {
      decode: SchemaGetter.transform((flat: ReadonlyArray<string>) => {
        const record: Record<string, string> = {}
        for (let index = 0; index + 1 < flat.length; index += 2) record[flat[index] ?? ""] = flat[index + 1] ?? ""
        return record
      }),
      encode: SchemaGetter.transform((record: Readonly<Record<string, string>>) => Object.entries(record).flat())
    })
  )
])
const decodeHash = Schema.decodeUnknownEffect(HashFields)

const usageOf = (fields: Readonly<Record<string, string>>): ReadonlyArray<CounterUsage> => {
  const byKey = new Map<string, { usage: number; alerted: boolean }>()
  for (const [field, value] of Object.entries(fields)) {
    const kind = field.slice(0, 2)
    if (kind !== "u:" && kind !== "a:" && kind !== "r:") continue
    const valueKey = field.slice(2)
    const entry = byKey.get(valueKey) ?? { usage: 0, alerted: false }
    if (kind === "u:") entry.usage = Number(value)
    if (kind === "a:") entry.alerted = true
    byKey.set(valueKey, entry)
  }
  return [...byKey].map(([valueKey, entry]) => ({ valueKey, ...entry }))
}

/** Counters over a `Redis` service the app already has. */
export const layerStore = (
  options?: { readonly prefix?: string | undefined }
): Layer.Layer<UsageCounters, never, Redis.Redis> =>
  Layer.effect(
    UsageCounters,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const prefix = options?.prefix ?? DEFAULT_PREFIX
      const outage = yield* StoreOutage.make({
        store: "usage",
        whileDown: "requests under usage limits follow GATEWAY_LIMITS_ON_STORE_ERROR",
        ping: redis.send("PING"),
        deadline: DEADLINE
      })
      const guarded = <A>(operation: Effect.Effect<A, Redis.RedisError>): Effect.Effect<A, CounterStoreError> =>
        outage.guard<A | typeof DOWN, Redis.RedisError, never>(operation, { fallback: DOWN, unreachable }).pipe(
          Effect.mapError((error) => new CounterStoreError({ message: `redis: ${error.message}`, cause: error })),
          Effect.flatMap((answer) =>
            answer === DOWN
              ? Effect.fail(new CounterStoreError({ message: "redis: unreachable" }))
              : Effect.succeed(answer)
          )
        )
      const reserve = redis.eval(RESERVE)
      const settle = redis.eval(SETTLE)
      const leaseMillis = Duration.toMillis(yield* ReservationLease)
      const nextId = reservationIds()
      const graceMillis = Duration.toMillis(PERIOD_GRACE)
      /**
       * Milliseconds from `now` until a counter may expire: a grace past its lease after its period
       * ends, measured on the gateway's clock as leases are. At or below 0, Redis drops the key.
       */
      const expiresIn = (periodEnd: number | undefined, now: number): string =>
        periodEnd === undefined ? "" : String(periodEnd + leaseMillis + graceMillis - now)
      const giveBack = redis.eval(GIVE_BACK)
      const leasesPattern = `${literalPattern(prefix)}*${LEASES_SUFFIX}`
      let cursor = "0"
      /**
       * One page of a `SCAN` over the leases keys, carried on from run to run: each run is bounded.
       * Not under the outage guard: no request waits on it, so a slow answer is no outage.
       */
      const sweep = Effect.gen(function*() {
        const now = String(yield* Clock.currentTimeMillis)
        const page = yield* redis.send<unknown>(
          "SCAN",
          cursor,
          "MATCH",
          leasesPattern,
          "COUNT",
          String(SWEEP_SCAN_COUNT)
        )
          .pipe(Effect.flatMap(decodeScanPage))
        cursor = page[0]
        yield* Effect.forEach(
          page[1],
          (leases) => giveBack([leases.slice(0, -LEASES_SUFFIX.length), leases], [now]),
          { discard: true }
        )
        return cursor === "0" ? "done" as const : "more" as const
      })
      const sweepSoon = yield* LeaseSweep.make("redis", sweep)
      const keysOf = (entries: ReadonlyArray<{ readonly workspaceId: string; readonly counter: string }>) =>
        entries.flatMap((entry) => {
          const hash = counterKey(prefix, entry.workspaceId, entry.counter)
          return [hash, `${hash}:leases`]
        })
      const settleNow = (
        id: string,
        settlements: ReadonlyArray<Settlement>
      ): Effect.Effect<ReadonlyArray<number>, CounterStoreError> =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          guarded(
            Effect.map(
              settle(keysOf(settlements), [
                id,
                ...settlements.flatMap((settlement) => [
                  settlement.valueKey,
                  String(settlement.reserved),
                  String(settlement.used),
                  settlement.alertThreshold === null ? "" : String(settlement.alertThreshold),
                  expiresIn(settlement.periodEnd, now)
                ])
              ]),
              (crossed) => crossed.map((position) => position - 1)
            )
          ))
      const runInBackground = yield* FiberSet.makeRuntime()
      return UsageCounters.of({
        reserve: (reservations) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            sweepSoon()
            const id = nextId()
            return guarded(
              Effect.map(
                reserve(keysOf(reservations), [
                  String(now),
                  String(now + leaseMillis),
                  id,
                  ...reservations.flatMap((reservation) => [
                    reservation.valueKey,
                    String(reservation.limit),
                    String(reservation.amount),
                    expiresIn(reservation.periodEnd, now)
                  ])
                ]),
                (refused): ReserveResult =>
                  refused === 0 ? { _tag: "Admitted", id } : { _tag: "Refused", index: refused - 1 }
              )
            )
          }),
        settle: settleNow,
        settleSent: (id, settlements, answered) =>
          Effect.andThen(
            Effect.sync(() => {
              // in the layer's fibers: a request that ends or is interrupted does not cut its settlement
              // short; the fiber runs at once up to its send
              runInBackground(
                settleNow(id, settlements).pipe(
                  Effect.flatMap(answered),
                  Effect.catchTag(
                    "CounterStoreError",
                    (error) => Effect.logError(`usage limits: cannot settle: ${error.message}`)
                  )
                )
              )
            }),
            RedisConnection.written
          ),
        usage: (workspaceId, counter) =>
          guarded(redis.send<unknown>("HGETALL", counterKey(prefix, workspaceId, counter))).pipe(
            Effect.flatMap((answer) =>
              Effect.mapError(
                decodeHash(answer),
                (error) => new CounterStoreError({ message: `redis: ${error.message}`, cause: error })
              )
            ),
            Effect.map(usageOf)
          )
      })
    })
  )

/** Counters in the Redis at `url`, over a connection of their own (see `@switchyard/redis`). */
export const layer = (
  options: { readonly url: string | Redacted.Redacted<string>; readonly prefix?: string | undefined }
): Layer.Layer<UsageCounters, Redis.RedisError> =>
  layerStore({ prefix: options.prefix }).pipe(Layer.provide(RedisConnection.layer({ url: options.url })))

/**
 * effect/persistence `RateLimiter`'s Redis store, under the same rule as the counters: no window
 * operation waits long on an unreachable Redis (1 s deadline, then immediate `RateLimitStoreError`s
 * until a background `PING` finds it again).
 */
export const layerWindows = (
  options?: { readonly prefix?: string | undefined }
): Layer.Layer<RateLimiter.RateLimiterStore, never, Redis.Redis> =>
  Layer.effect(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const store = yield* RateLimiter.makeStoreRedis({ prefix: options?.prefix ?? `${DEFAULT_PREFIX}rate:` })
      const outage = yield* StoreOutage.make({
        store: "rate",
        whileDown: "requests under rate limits follow GATEWAY_LIMITS_ON_STORE_ERROR",
        ping: redis.send("PING"),
        deadline: DEADLINE
      })
      const down = new RateLimiter.RateLimiterError({
        reason: new RateLimiter.RateLimitStoreError({ message: "redis: unreachable" })
      })
      // the store wraps a Redis failure (or the client's own error) in a RateLimiterError: its cause says whether Redis answered
      const notReached = (error: RateLimiter.RateLimiterError): unknown => {
        if (error.reason._tag !== "RateLimitStoreError") return undefined
        const cause = error.reason.cause
        if (cause instanceof Redis.RedisError) return unreachable(cause)
        return RedisConnection.isReply(cause) ? undefined : cause ?? error
      }
      const guarded = <A>(operation: Effect.Effect<A, RateLimiter.RateLimiterError>) =>
        outage.guard<A | typeof DOWN, RateLimiter.RateLimiterError, never>(operation, {
          fallback: DOWN,
          unreachable: notReached
        }).pipe(Effect.flatMap((answer) => answer === DOWN ? Effect.fail(down) : Effect.succeed(answer)))
      return RateLimiter.RateLimiterStore.of({
        ...store,
        fixedWindow: (window) => guarded(store.fixedWindow(window)),
        tokenBucket: (bucket) => guarded(store.tokenBucket(bucket))
      })
    })
  )

/**
 * Usage counters and rate windows in the Redis at `url`, over one connection: what every replica
 * must share for limits to be exact.
 */
export const layerStores = (
  options: { readonly url: string | Redacted.Redacted<string>; readonly prefix?: string | undefined }
): Layer.Layer<UsageCounters | RateLimiter.RateLimiterStore, Redis.RedisError> =>
  Layer.merge(
    layerStore({ prefix: options.prefix }),
    layerWindows({ prefix: `${options.prefix ?? DEFAULT_PREFIX}rate:` })
  ).pipe(Layer.provide(RedisConnection.layer({ url: options.url })))
