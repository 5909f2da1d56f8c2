import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { expect, it } from "vitest"
import { driveAutocannon, type LoadResult, medianRun, runLoad } from "../src/LoadRun.ts"
import { driveWrk, wrkInstalled } from "../src/WrkRun.ts"

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
  cpuMicrosPerRequest,
  generatorCpuMicrosPerRequest: 40
})

it("reports the run of middle throughput, whole, among an odd number of rounds", () => {
  expect(medianRun([run(4_000, 250), run(5_500, 180), run(3_000, 330)])).toEqual(run(4_000, 250))
})

it("takes the lower of the two middle runs among an even number, and nothing of no run", () => {
  expect(medianRun([run(4_000, 250), run(5_500, 180), run(3_000, 330), run(4_500, 220)])).toEqual(run(4_000, 250))
  expect(medianRun([run(4_000, 250)])).toEqual(run(4_000, 250))
  expect(medianRun([])).toBeUndefined()
})

it.each([["autocannon", driveAutocannon], ["wrk", driveWrk]] as const)(
  "measures a run with %s: throughput, latency, and the CPU of the target and of the load generator",
  { timeout: 15_000 },
  async (name, drive) => {
    if (name === "wrk" && !(await wrkInstalled())) {
      throw new Error("no wrk on the PATH: apt-get install wrk (as .ci/run does)")
    }
    const server = createServer((request, response) => {
      request.resume()
      request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`
      // the target is this process: its CPU over the run is the server's and autocannon's, if it runs here
      const target = { name: "local", url, headers: { "content-type": "application/json" }, pid: process.pid }
      const result = await runLoad(target, { body: "{}", connections: 4, durationSeconds: 1, warmupSeconds: 0, drive })
      expect(result).toMatchObject({ target: "local", connections: 4, errors: 0, non2xx: 0 })
      expect(result.responses).toBeGreaterThan(0)
      expect(result.latencyMs.p50).toBeGreaterThan(0)
      expect(result.cpuMicrosPerRequest).toBeGreaterThan(0)
      expect(result.generatorCpuMicrosPerRequest).toBeGreaterThan(0)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  }
)
