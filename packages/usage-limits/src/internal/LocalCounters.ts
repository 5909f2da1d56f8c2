/**
 * `UsageCounters.layerLocal`: one process's counters, exact in memory and written to
 * `usage_counters` in batches.
 */
import type { SqliteWriter } from "@switchyard/storage"
import { Effect, FiberSet, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import type { ImmediateCounters, Reservation, ReserveResult, UsageCounters } from "../UsageCounters.ts"
import { decodeStoredRows, keyOf, readUsage } from "./CounterRows.ts"
import { storeError } from "./CounterStoreError.ts"

/** A counter of `layerLocal`, as it stands in memory. */
export interface LocalCounter {
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

const UNLOADED: ReserveResult = { _tag: "Refused", index: 0 }

/** Writes a batch of counters as they stand in memory, all or none. */
export type WriteCounters = (
  batch: ReadonlyArray<LocalCounter>
) => Effect.Effect<void, { readonly message: string }>

/** On the gateway's own connection. */
const writeOnClient = (sql: SqlClient.SqlClient): WriteCounters => (batch) =>
  sql.withTransaction(
    Effect.forEach(
      batch,
      (entry) =>
        sql`INSERT INTO usage_counters (counter_key, policy_id, value_key, usage, reserved, alerted)
        VALUES (${entry.key}, ${entry.policyId}, ${entry.valueKey}, ${entry.usage}, 0, ${entry.alerted ? 1 : 0})
        ON CONFLICT (counter_key) DO UPDATE SET usage = excluded.usage, alerted = excluded.alerted`,
      { discard: true }
    )
  )

/** {@link writeOnClient}'s statement, with the placeholders the writer thread binds. */
const UPSERT_ROW = `INSERT INTO usage_counters (counter_key, policy_id, value_key, usage, reserved, alerted)
  VALUES (?, ?, ?, ?, 0, ?)
  ON CONFLICT (counter_key) DO UPDATE SET usage = excluded.usage, alerted = excluded.alerted`

/**
 * Through the SQLite writer thread: it writes the batch in turn with the request log's, so the batch
 * never waits for the database's write lock (on the gateway's connection it would wait between
 * tries, holding that connection), and the statement runs off the event loop.
 */
export const writeOnThread = (writer: SqliteWriter.SqliteWriter["Service"]): WriteCounters => (batch) => {
  const values: Array<SqliteWriter.Value> = []
  for (const entry of batch) values.push(entry.key, entry.policyId, entry.valueKey, entry.usage, entry.alerted ? 1 : 0)
  return Effect.asVoid(writer.write([{ sql: UPSERT_ROW, width: 5, values }]))
}

/** The counters, read on the gateway's connection and written by `write` (default: {@link writeOnClient}). */
export const make = (
  write?: WriteCounters
): Effect.Effect<UsageCounters["Service"], never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const writeBatch = write ?? writeOnClient(sql)
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
      return writeBatch(batch).pipe(
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

    return {
      // after `load` every counter is in memory; one that is not is refused rather than taken uncounted
      reserve: (reservations) =>
        Effect.map(load(reservations), (): ReserveResult => immediate.reserve(reservations) ?? UNLOADED),
      settle: (_id, settlements) => Effect.map(load(settlements), () => immediate.settle(settlements)),
      usage: (_workspaceId, counter) => Effect.andThen(flush, Effect.mapError(readUsage(sql, counter), storeError)),
      immediate
    }
  })
