import { assert, describe, it } from "@effect/vitest"
import { KeptSeries } from "@switchyard/observability"
import { Context, Metric } from "effect"
import fc from "fast-check"

const registry = () => Context.make(Metric.MetricRegistry, new Map())

/** The states a registry reads, by metric id: what `PrometheusMetrics` renders. */
const statesOf = (context: Context.Context<never>) =>
  Metric.snapshotUnsafe(context).map((snapshot) => [snapshot.id, snapshot.state] as const)

const anyValue = fc.oneof(
  fc.double({ noNaN: true }),
  fc.integer({ min: -5, max: 1_000 }),
  fc.constantFrom(0, 0.001, 0.005, 1, 4, 16, 300, -0)
)

describe("KeptSeries", () => {
  it("reads as effect's own histogram, counter and gauge updated with the same values", () => {
    fc.assert(
      fc.property(
        fc.array(anyValue, { maxLength: 60 }),
        fc.uniqueArray(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 8 }),
        (values, boundaries) => {
          const histogram = Metric.histogram("h", { boundaries })
          const counter = Metric.counter("c")
          const gauge = Metric.gauge("g")
          const effects = registry()
          const kept = registry()
          const keptHistogram = KeptSeries.histogram(histogram, boundaries, kept)
          const keptCounter = KeptSeries.counter(counter, kept)
          const keptGauge = KeptSeries.gauge(gauge, kept)
          for (const value of values) {
            histogram.updateUnsafe(value, effects)
            counter.updateUnsafe(value, effects)
            gauge.updateUnsafe(value, effects)
            keptHistogram.observe(value)
            keptCounter.add(value)
            keptGauge.set(value)
          }
          // effect registers a series on its first update only
          if (values.length > 0) assert.deepStrictEqual(statesOf(kept), statesOf(effects))
        }
      ),
      { numRuns: 500 }
    )
  })

  it("counts a value equal to a boundary in that boundary's bucket, and one past the last in none", () => {
    const context = registry()
    const series = KeptSeries.histogram(Metric.histogram("h", { boundaries: [1, 5] }), [5, 1], context)
    for (const value of [1, 5, 5.5, 0]) series.observe(value)
    assert.deepStrictEqual(statesOf(context), [["h", {
      buckets: [[1, 2], [5, 3]],
      count: 4,
      sum: 11.5,
      min: 0,
      max: 5.5
    }]])
  })
})
