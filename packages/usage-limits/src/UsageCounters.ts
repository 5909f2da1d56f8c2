/**
 * The counters behind usage limits: per counter (a policy, its epoch, its period and a value key)
 * the settled usage and the open reservations. `reserve` admits a request only while, for every
 * counter it touches, settled plus reserved is below the limit, and takes all of them or none,
 * atomically; so the request that reaches a limit is the last one admitted, however many
 * requests run at once and on however many replicas share the store.
 *
 * A reservation shared by replicas holds for a lease ({@link ReservationLease}): one whose process
 * died between reserving and settling is given back once its lease lapses, rather than shrinking
 * the budget until the period ends.
 *
 * The embedded default keeps them in the gateway's database (they survive a restart); replicas
 * share them in Postgres, or in Redis (`@switchyard/usage-limits/redis`).
 *
 * @example
 * import { UsageCounters } from "@switchyard/usage-limits"
 * import { Effect } from "effect"
 * const admitted = UsageCounters.UsageCounters.use((counters) =>
 *   counters.reserve([
 *     { counter: "p:0:all", workspaceId: "ws-1", policyId: "p", valueKey: "api_key:k1", limit: 50, amount: 20 }
 *   ])
 * )
 */
import { Clock, Context, Data, Duration, Effect, FiberSet, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import {
  decodeAmounts,
  decodeCounterKeys,
  decodeStoredRows,
  inKeyOrder,
  keyOf,
  readUsage
} from "./internal/CounterRows.ts"
import * as LeaseSweep from "./internal/LeaseSweep.ts"

/** One counter a request reserves on. */
export interface Reservation {
  /** A policy's counters of one epoch and period (`<policy>:<epoch>:<period>`). */
  readonly counter: string
  /** The policy's workspace: Redis keeps one workspace's counters in one hash slot. */
  readonly workspaceId: string
  readonly policyId: string
  readonly valueKey: string
  readonly limit: number
  /** What is reserved: the request's upper bound, at most `limit`. */
  readonly amount: number
  /**
   * When the counter's period ends (epoch ms), after which a store may drop it; undefined (a
   * cumulative limit) keeps it for good.
   */
  readonly periodEnd?: number | undefined
}

/** What to settle a reservation to. */
export interface Settlement {
  readonly counter: string
  readonly workspaceId: string
  readonly valueKey: string
  readonly reserved: number
  /** The real usage (0 to release). */
  readonly used: number
  /** Once usage reaches it, the counter is marked alerted, once per period. */
  readonly alertThreshold: number | null
  /** As in {@link Reservation}: when the counter's period ends, if it does. */
  readonly periodEnd?: number | undefined
}

export type ReserveResult =
  /** `id`: the reservation's, to settle it with. */
  | { readonly _tag: "Admitted"; readonly id: string }
  /** `index`: the reservation, in the order given, whose counter has reached its limit. */
  | { readonly _tag: "Refused"; readonly index: number }

/** One counter's state, for `value_key_usage_map`. */
export interface CounterUsage {
  readonly valueKey: string
  readonly usage: number
  readonly alerted: boolean
}

/** The counters' store could not be reached; `GATEWAY_LIMITS_ON_STORE_ERROR` decides what follows. */
export class CounterStoreError extends Data.TaggedError("CounterStoreError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

const storeError = (error: { readonly message: string }) =>
  new CounterStoreError({ message: `usage counters: ${error.message}`, cause: error })

/**
 * How long a reservation in a store shared by replicas (`layerSql`, Redis) holds before it is
 * given back unsettled (`GATEWAY_LIMITS_RESERVATION_LEASE_SECONDS`). It must outlast the longest
 * request: a request still running when its lease lapses no longer holds its reservation (it
 * still settles its real usage at its end), so until then concurrent requests could overshoot the
 * limit by its bound. The default, 15 minutes, is well past what a JSON answer can take (each
 * upstream attempt is bounded by `request_timeout`); only a stream can run longer. Leases are
 * compared with each replica's clock: replicas' clocks must agree to well within it.
 */
export const ReservationLease = Context.Reference<Duration.Duration>(
  "@switchyard/usage-limits/UsageCounters/ReservationLease",
  { defaultValue: () => Duration.minutes(15) }
)

/**
 * How long after a reservation the counters replicas share (`layerSql`, Redis) sweep the lapsed
 * leases of counters no request touches any more, and their pace while reservations go on.
 */
export const LeaseSweepInterval: Duration.Duration = LeaseSweep.INTERVAL

/**
 * Reservation ids unique across replicas without a random draw per request: this process's random
 * prefix and a sequence number.
 */
export const reservationIds = (): () => string => {
  const processId = randomBytes(8).toString("hex")
  let sequence = 0
  return () => `${processId}-${(sequence++).toString(36)}`
}

export class UsageCounters extends Context.Service<UsageCounters, {
  readonly reserve: (reservations: ReadonlyArray<Reservation>) => Effect.Effect<ReserveResult, CounterStoreError>
  /**
   * Settles each counter of the reservation `id` (what `reserve` answered); answers the indexes of
   * those whose alert threshold this call crossed. A reservation whose lease has lapsed was given
   * back already: only its usage is added.
   */
  readonly settle: (
    id: string,
    settlements: ReadonlyArray<Settlement>
  ) => Effect.Effect<ReadonlyArray<number>, CounterStoreError>
  /** Every value key's usage on `counter` (one policy's epoch and period). */
  readonly usage: (
    workspaceId: string,
    counter: string
  ) => Effect.Effect<ReadonlyArray<CounterUsage>, CounterStoreError>
  /** Counters that answer without an effect (this process's own, `layerLocal`): the stage's fast path. */
  readonly immediate?: ImmediateCounters | undefined
}>()("@switchyard/usage-limits/UsageCounters") {
  /**
   * Counters in the gateway's database (`usage_counters`, with each open reservation and its lease
   * in `usage_reservations`): SQLite serialises the transactions, and on Postgres each guarded
   * `UPDATE` holds its row until the transaction ends (counters are taken in key order, so two
   * requests never wait on each other in a cycle). A reservation's row is deleted by whoever gives
   * it back first, its settlement or a later reservation finding its lease lapsed, and only that
   * one subtracts it from `reserved`. Counters no request touches again have their lapsed leases
   * given back by a background sweep, a minute after reservations ({@link LeaseSweepInterval}).
   */
  static readonly layerSql: Layer.Layer<UsageCounters, never, SqlClient.SqlClient> = Layer.effect(
    UsageCounters,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const leaseMillis = Duration.toMillis(yield* ReservationLease)
      const nextId = reservationIds()
      /** Gives back the reservations on `key` whose lease has lapsed: their process died before settling. */
      const reclaim = (key: string, now: number) =>
        Effect.flatMap(
          sql`DELETE FROM usage_reservations WHERE counter_key = ${key} AND expires_at <= ${now} RETURNING amount`
            .pipe(Effect.flatMap(decodeAmounts)),
          (lapsed) =>
            lapsed.length === 0 ? Effect.void : Effect.asVoid(sql`UPDATE usage_counters
              SET reserved = reserved - ${lapsed.reduce((sum, row) => sum + row.amount, 0)}
              WHERE counter_key = ${key}`)
        )
      const take = (reservation: Reservation, key: string, id: string, now: number) =>
        Effect.gen(function*() {
          yield* sql`INSERT INTO usage_counters (counter_key, policy_id, value_key, usage, reserved, alerted)
            VALUES (${key}, ${reservation.policyId}, ${reservation.valueKey}, 0, 0, 0)
            ON CONFLICT (counter_key) DO NOTHING`
          yield* reclaim(key, now)
          const rows = yield* sql`UPDATE usage_counters SET reserved = reserved + ${reservation.amount}
            WHERE counter_key = ${key} AND usage + reserved < ${reservation.limit}
            RETURNING counter_key`
          if (rows.length === 0) return false
          yield* sql`INSERT INTO usage_reservations (counter_key, reservation_id, amount, expires_at)
            VALUES (${key}, ${id}, ${reservation.amount}, ${now + leaseMillis})`
          return true
        })
      // no index on expires_at alone: the table holds only open reservations, a few per request in flight
      const sweep = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const keys = yield* sql`SELECT DISTINCT counter_key FROM usage_reservations
          WHERE expires_at <= ${now} LIMIT ${SQL_SWEEP_BATCH}`.pipe(Effect.flatMap(decodeCounterKeys))
        // one counter a transaction, as a reservation reclaims it: no lock held across counters
        yield* Effect.forEach(keys, (row) => sql.withTransaction(reclaim(row.counter_key, now)), { discard: true })
        return keys.length === SQL_SWEEP_BATCH ? "more" as const : "done" as const
      })
      const sweepSoon = yield* LeaseSweep.make("sql", sweep)
      return UsageCounters.of({
        reserve: (reservations) => {
          const all = Effect.gen(function*() {
            sweepSoon()
            const id = nextId()
            const now = yield* Clock.currentTimeMillis
            for (const { index, key, value } of inKeyOrder(reservations)) {
              // a refusal rolls back what this request took on the other counters
              if (!(yield* take(value, key, id, now))) return yield* new Refused({ index })
            }
            const result: ReserveResult = { _tag: "Admitted", id }
            return result
          })
          return sql.withTransaction(all).pipe(
            Effect.catchTag(
              "Refused",
              (refused): Effect.Effect<ReserveResult> => Effect.succeed({ _tag: "Refused", index: refused.index })
            ),
            Effect.mapError(storeError)
          )
        },
        settle: (id, settlements) =>
          sql.withTransaction(Effect.gen(function*() {
            const crossed: Array<number> = []
            for (const { index, key, value: settlement } of inKeyOrder(settlements)) {
              const held = yield* sql`DELETE FROM usage_reservations
                WHERE counter_key = ${key} AND reservation_id = ${id} RETURNING amount`.pipe(
                Effect.flatMap(decodeAmounts)
              )
              // a lapsed lease was given back by a later reservation: only the usage is added
              const reserved = held.reduce((sum, row) => sum + row.amount, 0)
              yield* sql`UPDATE usage_counters
                SET usage = usage + ${settlement.used}, reserved = reserved - ${reserved}
                WHERE counter_key = ${key}`
              if (settlement.alertThreshold === null || settlement.used === 0) continue
              const rows = yield* sql`UPDATE usage_counters SET alerted = 1
                WHERE counter_key = ${key} AND alerted = 0 AND usage >= ${settlement.alertThreshold}
                RETURNING counter_key`
              if (rows.length > 0) crossed.push(index)
            }
            return crossed.sort((a, b) => a - b)
          })).pipe(Effect.mapError(storeError)),
        usage: (_workspaceId, counter) => Effect.mapError(readUsage(sql, counter), storeError)
      })
    })
  )

  /**
   * Counters of one process on its own database (the embedded SQLite default): exact in memory,
   * where taking a reservation is one synchronous step, and written to `usage_counters` in
   * batches (every second while there is new usage, and when the layer closes), so that they
   * survive a restart without a disk write on the request path. Open reservations are never
   * written, so a crash releases them; it loses at most the last second of settled usage (a
   * write, and its fsync, every 100 ms cost the request path about 5 % of its CPU).
   * Replicas must not share these: they use `layerSql` on Postgres, or Redis.
   */
  static readonly layerLocal: Layer.Layer<UsageCounters, never, SqlClient.SqlClient> = Layer.effect(
    UsageCounters,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const entries = new Map<string, LocalCounter>()
      const dirty = new Set<LocalCounter>()

      /** Reads the counters this process has not seen yet; a counter already in memory is never replaced. */
      const load = (wanted: ReadonlyArray<{ readonly counter: string; readonly valueKey: string }>) => {
        const missing = wanted.filter((entry) => !entries.has(keyOf(entry)))
        if (missing.length === 0) return Effect.void
        return sql`SELECT counter_key, usage, alerted FROM usage_counters WHERE counter_key IN ${
          sql.in(missing.map(keyOf))
        }`.pipe(
          Effect.flatMap(decodeStoredRows),
          Effect.map((rows) => {
            const stored = new Map(rows.map((row) => [row.counter_key, row]))
            for (const entry of missing) {
              const key = keyOf(entry)
              if (entries.has(key)) continue
              const row = stored.get(key)
              entries.set(key, {
                key,
                counter: entry.counter,
                valueKey: entry.valueKey,
                policyId: "policyId" in entry && typeof entry.policyId === "string" ? entry.policyId : "",
                usage: row?.usage ?? 0,
                reserved: 0,
                alerted: row !== undefined && row.alerted !== 0
              })
            }
          }),
          Effect.mapError(storeError)
        )
      }

      // a second after the first new usage, not on a timer of its own: an idle gateway never wakes for it
      const run = yield* FiberSet.makeRuntime()
      let scheduled = false
      const flushSoon = () => {
        if (scheduled) return
        scheduled = true
        run(Effect.andThen(
          Effect.sleep("1 second"),
          Effect.suspend(() => {
            scheduled = false
            return flush
          })
        ))
      }
      const flush: Effect.Effect<void> = Effect.suspend(() => {
        if (dirty.size === 0) return Effect.void
        const batch = [...dirty]
        dirty.clear()
        return sql.withTransaction(
          Effect.forEach(
            batch,
            (entry) =>
              sql`INSERT INTO usage_counters (counter_key, policy_id, value_key, usage, reserved, alerted)
            VALUES (${entry.key}, ${entry.policyId}, ${entry.valueKey}, ${entry.usage}, 0, ${entry.alerted ? 1 : 0})
            ON CONFLICT (counter_key) DO UPDATE SET usage = excluded.usage, alerted = excluded.alerted`,
            {
              discard: true
            }
          )
        ).pipe(
          // written again with the next batch: memory holds the truth
          Effect.tapError(() =>
            Effect.sync(() => {
              batch.forEach((entry) => dirty.add(entry))
              flushSoon()
            })
          ),
          Effect.catch((error) => Effect.logError(`usage counters: cannot write a batch: ${error.message}`))
        )
      })
      yield* Effect.addFinalizer(() => flush)

      const immediate: ImmediateCounters = {
        reserve: (reservations) => {
          // one synchronous step: the check and the taking cannot interleave with another request
          const taken: Array<{ readonly entry: LocalCounter; readonly reservation: Reservation }> = []
          for (const reservation of reservations) {
            const entry = entries.get(keyOf(reservation))
            if (entry === undefined) return undefined
            taken.push({ entry, reservation })
          }
          for (const [index, { entry, reservation }] of taken.entries()) {
            if (entry.usage + entry.reserved >= reservation.limit) return { _tag: "Refused", index }
          }
          for (const { entry, reservation } of taken) {
            entry.reserved += reservation.amount
            if (entry.policyId === "") entry.policyId = reservation.policyId
          }
          return LOCAL_ADMISSION
        },
        settle: (settlements) => {
          const crossed: Array<number> = []
          for (const [index, settlement] of settlements.entries()) {
            const entry = entries.get(keyOf(settlement))
            if (entry === undefined) continue
            entry.reserved -= settlement.reserved
            entry.usage += settlement.used
            if (settlement.used !== 0) {
              dirty.add(entry)
              flushSoon()
            }
            const threshold = settlement.alertThreshold
            if (threshold !== null && settlement.used > 0 && !entry.alerted && entry.usage >= threshold) {
              entry.alerted = true
              crossed.push(index)
            }
          }
          return crossed
        }
      }

      return UsageCounters.of({
        // after `load` every counter is in memory; one that is not is refused rather than taken uncounted
        reserve: (reservations) =>
          Effect.map(load(reservations), (): ReserveResult => immediate.reserve(reservations) ?? UNLOADED),
        settle: (_id, settlements) => Effect.map(load(settlements), () => immediate.settle(settlements)),
        usage: (_workspaceId, counter) => Effect.andThen(flush, Effect.mapError(readUsage(sql, counter), storeError)),
        immediate
      })
    })
  )
}

/**
 * Counters that answer at once, for requests that must not pay for an effect per step. Only
 * counters in this process's memory can: a shared store is a round trip away.
 */
export interface ImmediateCounters {
  /** What `reserve` answers; `undefined` while a counter has not been read from the database yet. */
  readonly reserve: (reservations: ReadonlyArray<Reservation>) => ReserveResult | undefined
  /** What `settle` answers; a counter not in memory has nothing reserved to settle. */
  readonly settle: (settlements: ReadonlyArray<Settlement>) => ReadonlyArray<number>
}

/** A counter of `layerLocal`, as it stands in memory. */
interface LocalCounter {
  readonly key: string
  readonly counter: string
  readonly valueKey: string
  policyId: string
  usage: number
  reserved: number
  alerted: boolean
}

/**
 * `layerLocal` needs no reservation ids: its reservations live in this process's memory and die
 * with it, so a dead process can leave none behind.
 */
const LOCAL_ADMISSION: ReserveResult = { _tag: "Admitted", id: "" }

/** How many counters one run of `layerSql`'s lease sweep gives back at most. */
const SQL_SWEEP_BATCH = 100

const UNLOADED: ReserveResult = { _tag: "Refused", index: 0 }

class Refused extends Data.TaggedError("Refused")<{ readonly index: number }> {}
