import { expect, it } from "vitest"
import type { LoadResult } from "../src/LoadRun.ts"
import { compareWithBaseline, median } from "../src/ResultsReport.ts"

const run = (target: string, requestsPerSecond: number, p50: number): LoadResult => ({
  target,
  connections: 50,
  durationSeconds: 2,
  requestsPerSecond,
  responses: requestsPerSecond * 2,
  latencyMs: { p50, p99: p50 * 3, mean: p50 },
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  peakRssMib: 200,
  cpuMicrosPerRequest: 150,
  generatorCpuMicrosPerRequest: 40
})

it("compares each round's runs with each other, beside the ratio of the two reported runs", () => {
  // the machine slowed down in round 2: both targets fell together
  const bare = [run("bare", 10_000, 5), run("bare", 6_000, 9), run("bare", 8_000, 6)]
  const gateway = [run("gateway", 5_000, 8), run("gateway", 5_400, 10), run("gateway", 5_600, 7)]
  const [comparison, ...others] = compareWithBaseline([bare, gateway], "bare")
  expect(others).toEqual([])
  expect(comparison?.target).toBe("gateway")
  // reported runs: bare 8,000 (p50 6), gateway 5,400 (p50 10)
  expect(comparison?.throughputRatio).toBeCloseTo(0.675, 6)
  expect(comparison?.addedP50Ms).toBeCloseTo(4, 6)
  // per round: 0.5, 0.9, 0.7 and +3, +1, +1
  expect(comparison?.roundThroughputRatio).toBeCloseTo(0.7, 6)
  expect(comparison?.roundAddedP50Ms).toBeCloseTo(1, 6)
})

it("has no per-round figures with one round, and no comparison without the baseline", () => {
  const [comparison] = compareWithBaseline([[run("bare", 8_000, 6)], [run("gateway", 6_000, 7)]], "bare")
  expect(comparison?.throughputRatio).toBeCloseTo(0.75, 6)
  expect(comparison?.roundThroughputRatio).toBeNull()
  expect(comparison?.roundAddedP50Ms).toBeNull()
  expect(compareWithBaseline([[run("gateway", 6_000, 7)]], "bare")).toEqual([])
})

it("takes the middle value, or the mean of the two middle ones", () => {
  expect(median([3, 1, 2])).toBe(2)
  expect(median([4, 1, 3, 2])).toBe(2.5)
  expect(median([])).toBeNull()
})
