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
import { SqliteWriter } from "@switchyard/storage"
import { Context, type Duration, Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { CounterStoreError } from "./internal/CounterStoreError.ts"
import * as LeaseSweep from "./internal/LeaseSweep.ts"
import * as LocalCounters from "./internal/LocalCounters.ts"
import * as SqlCounters from "./internal/SqlCounters.ts"

export { CounterStoreError } from "./internal/CounterStoreError.ts"
export { reservationIds, ReservationLease } from "./internal/ReservationLease.ts"

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

/**
 * How long after a reservation the counters replicas share (`layerSql`, Redis) sweep the lapsed
 * leases of counters no request touches any more, and their pace while reservations go on.
 */
export const LeaseSweepInterval: Duration.Duration = LeaseSweep.INTERVAL

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
  /**
   * Settles as `settle` does, but returns as soon as the settlement is on its way to a store that
   * applies commands in the order they arrive (Redis): before its answer, yet before anything this
   * replica sends later, so the client is not kept waiting for a round trip it does not need and a
   * caller's next request still meets the settled counters. `answered` runs with the crossed
   * alerts in the background; a failure there is logged, as a settlement after the answer is.
   * Absent where only the answer proves the settlement applied (SQL, memory).
   */
  readonly settleSent?:
    | ((
      id: string,
      settlements: ReadonlyArray<Settlement>,
      answered: (crossed: ReadonlyArray<number>) => Effect.Effect<void>
    ) => Effect.Effect<void>)
    | undefined
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
    SqlCounters.make
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
    LocalCounters.make()
  )

  /**
   * {@link layerLocal} with its batches written by the SQLite writer thread
   * (`@switchyard/storage`'s `SqliteWriter`, on the same database file), in turn with the request
   * log's batches: it never waits for the write lock the thread holds, and runs off the event loop.
   * The embedded gateway's choice.
   */
  static readonly layerLocalSqliteWriter: Layer.Layer<
    UsageCounters,
    never,
    SqlClient.SqlClient | SqliteWriter.SqliteWriter
  > = Layer.effect(
    UsageCounters,
    Effect.gen(function*() {
      return yield* LocalCounters.make(LocalCounters.writeOnThread(yield* SqliteWriter.SqliteWriter))
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
