/**
 * `UsageCounters.layerSql`: the counters in the gateway's database, each open reservation and its
 * lease in `usage_reservations`, and the background sweep of lapsed leases.
 */
import { Clock, Data, Duration, Effect, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { Reservation, ReserveResult, UsageCounters } from "../UsageCounters.ts"
import { decodeAmounts, decodeCounterKeys, inKeyOrder, readUsage } from "./CounterRows.ts"
import { storeError } from "./CounterStoreError.ts"
import * as LeaseSweep from "./LeaseSweep.ts"
import { reservationIds, ReservationLease } from "./ReservationLease.ts"

/** How many counters one run of `layerSql`'s lease sweep gives back at most. */
const SQL_SWEEP_BATCH = 100

class Refused extends Data.TaggedError("Refused")<{ readonly index: number }> {}

export const make: Effect.Effect<UsageCounters["Service"], never, SqlClient.SqlClient | Scope.Scope> = Effect.gen(
  function*() {
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
    return {
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
    }
  }
)
