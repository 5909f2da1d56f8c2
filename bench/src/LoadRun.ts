import autocannon from "autocannon"
import { cpuTimeMs } from "./ProcessCpu.ts"
import { sampleRss } from "./RssSampler.ts"

/** Something the bench sends chat requests to. */
export interface Target {
  readonly name: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The server process, for its memory; null when it is not ours to watch. */
  readonly pid: number | null
  /** The request body, when the target does not take the chat one (`--messages`). */
  readonly request?: Readonly<Record<string, unknown>>
}

export interface LoadResult {
  readonly target: string
  readonly connections: number
  readonly durationSeconds: number
  readonly requestsPerSecond: number
  readonly responses: number
  /**
   * Response times to the microsecond: of 2xx answers from autocannon (whose own percentiles are
   * whole ms), of every answer from wrk (its histogram).
   */
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly mean: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  /** Highest VmRSS of the target process during this run, in MiB. */
  readonly peakRssMib: number | null
  /** CPU time (user + system) the target process used per response during this run, in µs. */
  readonly cpuMicrosPerRequest: number | null
  /**
   * CPU time the load generator used per response during this run, in µs: on a machine of two
   * CPUs, what it took from the servers measured.
   */
  readonly generatorCpuMicrosPerRequest: number | null
}

/** What one run of a load generator measured; `generatorCpuMs`, the CPU it used itself (null: unknown). */
export type Driven =
  & Omit<LoadResult, "target" | "connections" | "peakRssMib" | "cpuMicrosPerRequest" | "generatorCpuMicrosPerRequest">
  & { readonly generatorCpuMs: number | null }

/** One run of a load generator: `body` POSTed to `target` over `connections` for `seconds`. */
export type Drive = (target: Target, body: string, connections: number, seconds: number) => Promise<Driven>

export interface LoadPlan {
  readonly body: string
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
  /** The load generator: {@link driveAutocannon} unless told otherwise. */
  readonly drive?: Drive
}

/** A warm-up run (discarded), then the measured run, both bounded by their durations. */
export const runLoad = async (target: Target, plan: LoadPlan): Promise<LoadResult> => {
  const drive = plan.drive ?? driveAutocannon
  if (plan.warmupSeconds > 0) await drive(target, plan.body, plan.connections, plan.warmupSeconds)
  const rss = target.pid === null ? null : sampleRss(target.pid)
  const cpuBefore = target.pid === null ? null : cpuTimeMs(target.pid)
  const { generatorCpuMs, ...result } = await drive(target, plan.body, plan.connections, plan.durationSeconds)
  const cpuAfter = target.pid === null ? null : cpuTimeMs(target.pid)
  const peakRssMib = rss?.stop() ?? null
  const perResponse = (ms: number | null) =>
    ms === null || result.responses === 0 ? null : (ms * 1000) / result.responses
  return {
    target: target.name,
    connections: plan.connections,
    ...result,
    peakRssMib,
    cpuMicrosPerRequest: perResponse(cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore),
    generatorCpuMicrosPerRequest: perResponse(generatorCpuMs)
  }
}

/**
 * autocannon, in this process; latencies of 2xx answers only, timed to the microsecond. Its CPU is
 * this process's over the run (the OTLP sink of `--otlp`, when it is measured, is counted in it).
 */
export const driveAutocannon: Drive = async (target, body, connections, seconds) => {
  const times: Array<number> = []
  const cpuBefore = process.cpuUsage()
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: target.url,
      method: "POST",
      headers: { ...target.headers },
      body,
      connections,
      pipelining: 1,
      duration: seconds,
      timeout: 10
    }, (error: unknown, result: autocannon.Result) => error ? reject(error) : resolve(result))
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime)
    })
  })
  const cpu = process.cpuUsage(cpuBefore)
  const sorted = Float64Array.from(times).sort()
  return {
    generatorCpuMs: (cpu.user + cpu.system) / 1000,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.average,
    responses: result["2xx"] + result.non2xx,
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      mean: times.length === 0 ? Number.NaN : times.reduce((sum, time) => sum + time, 0) / times.length
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx
  }
}

/** Nearest-rank percentile of an ascending array. */
const percentile = (sorted: Float64Array, fraction: number): number =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN

/**
 * The run of middle throughput among one target's rounds (of an even number, the lower of the
 * two middle ones): a whole run, so its latency, RSS and CPU stay figures that were measured
 * together; `undefined` for no run.
 */
export const medianRun = (runs: ReadonlyArray<LoadResult>): LoadResult | undefined => {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}
