import { expect, it } from "vitest"
import { type LoadResult, medianRun } from "../src/LoadRun.ts"

const run = (requestsPerSecond: number, cpuMicrosPerRequest: number): LoadResult => ({
  target: "gateway",
  connections: 50,
  durationSeconds: 10,
  requestsPerSecond,
  responses: requestsPerSecond * 10,
  latencyMs: { p50: 1, p99: 2, mean: 1 },
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  peakRssMib: 200,
  cpuMicrosPerRequest
})

it("reports the run of middle throughput, whole, among an odd number of rounds", () => {
  expect(medianRun([run(4_000, 250), run(5_500, 180), run(3_000, 330)])).toEqual(run(4_000, 250))
})

it("takes the lower of the two middle runs among an even number, and nothing of no run", () => {
  expect(medianRun([run(4_000, 250), run(5_500, 180), run(3_000, 330), run(4_500, 220)])).toEqual(run(4_000, 250))
  expect(medianRun([run(4_000, 250)])).toEqual(run(4_000, 250))
  expect(medianRun([])).toBeUndefined()
})
