/**
 * A metric series whose state is kept here, in plain numbers, and registered with effect's metric
 * registry (`Metric.registerUnsafe`) so that it is read from here when the metrics are read
 * (`PrometheusMetrics`, `Metric.snapshot`), as the same metric updated through effect would read.
 *
 * Why: an update through effect (`Metric#updateUnsafe`) looks the series up in the registry each
 * time (two context lookups and a map lookup by its key); the gateway's metrics took ~7,000
 * instructions of every chat request that way (callgrind), an addition here a few dozen.
 */
import { type Context, Metric } from "effect"

/** A counter's count, added to. */
export interface KeptCounter {
  readonly add: (value: number) => void
}

/** A histogram's buckets, count, sum and extremes, a value at a time. */
export interface KeptHistogram {
  readonly observe: (value: number) => void
}

/** A gauge's value, set. */
export interface KeptGauge {
  readonly set: (value: number) => void
}

/** The updates of a registered series go through here; effect's own are ignored. */
const ignored = () => {}

export const counter = (metric: Metric.Counter<number>, context: Context.Context<never>): KeptCounter => {
  let count = 0
  Metric.registerUnsafe(metric, context, {
    get: () => ({ count, incremental: false }),
    update: ignored,
    modify: ignored
  })
  return {
    add: (value) => {
      count += value
    }
  }
}

export const gauge = (metric: Metric.Gauge<number>, context: Context.Context<never>): KeptGauge => {
  let value = 0
  Metric.registerUnsafe(metric, context, { get: () => ({ value }), update: ignored, modify: ignored })
  return {
    set: (next) => {
      value = next
    }
  }
}

/**
 * A histogram over `boundaries` (each bucket counts the values up to its boundary), read as
 * effect's histogram state: cumulative bucket counts, with count, sum, min and max.
 */
export const histogram = (
  metric: Metric.Histogram<number>,
  boundaries: ReadonlyArray<number>,
  context: Context.Context<never>
): KeptHistogram => {
  const bounds = Float64Array.from(boundaries).sort()
  // one more than the boundaries: the values past the last
  const counts = new Float64Array(bounds.length + 1)
  let count = 0
  let sum = 0
  let min = Number.MAX_VALUE
  let max = -Number.MAX_VALUE
  Metric.registerUnsafe(metric, context, {
    get: () => {
      const buckets: Array<[number, number]> = []
      let cumulated = 0
      for (let i = 0; i < bounds.length; i++) {
        cumulated += counts[i] ?? 0
        buckets.push([bounds[i] ?? 0, cumulated])
      }
      return { buckets, count, sum, min, max }
    },
    update: ignored,
    modify: ignored
  })
  return {
    observe: (value) => {
      // the first boundary at or above the value (binary search), else past the last
      let low = 0
      let high = bounds.length
      while (low < high) {
        const middle = (low + high) >>> 1
        if (value <= (bounds[middle] ?? 0)) high = middle
        else low = middle + 1
      }
      counts[low] = (counts[low] ?? 0) + 1
      count++
      sum += value
      if (value < min) min = value
      if (value > max) max = value
    }
  }
}
