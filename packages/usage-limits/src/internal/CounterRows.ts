/**
 * The rows of the counters kept in the gateway's database (`usage_counters`,
 * `usage_reservations`), shared by `UsageCounters.layerSql` and `layerLocal`.
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { CounterUsage } from "../UsageCounters.ts"

/** A counter's row key: `<policy>:<epoch>:<period>|<value key>`. */
export const keyOf = (entry: { readonly counter: string; readonly valueKey: string }): string =>
  `${entry.counter}|${entry.valueKey}`

/** Each entry with its row key and position, in key order: transactions take rows in one order. */
export const inKeyOrder = <A extends { readonly counter: string; readonly valueKey: string }>(
  entries: ReadonlyArray<A>
): ReadonlyArray<{ readonly value: A; readonly index: number; readonly key: string }> =>
  entries.map((value, index) => ({ value, index, key: keyOf(value) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))

const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (match) => `\\${match}`)

const Numeric = Schema.Union([Schema.Finite, Schema.NumberFromString])
export const decodeStoredRows = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ counter_key: Schema.String, usage: Numeric, alerted: Numeric }))
)
export const decodeCounterKeys = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ counter_key: Schema.String })))
export const decodeAmounts = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ amount: Numeric })))
const decodeUsageRows = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ value_key: Schema.String, usage: Numeric, alerted: Numeric }))
)

/** Every value key's stored usage on `counter` (one policy's epoch and period). */
export const readUsage = (sql: SqlClient.SqlClient, counter: string) =>
  sql`SELECT value_key, usage, alerted FROM usage_counters WHERE counter_key LIKE ${`${
    escapeLike(counter)
  }|%`} ESCAPE '\\'`.pipe(
    Effect.flatMap(decodeUsageRows),
    Effect.map((rows): ReadonlyArray<CounterUsage> =>
      rows.map((row) => ({ valueKey: row.value_key, usage: row.usage, alerted: row.alerted !== 0 }))
    )
  )
