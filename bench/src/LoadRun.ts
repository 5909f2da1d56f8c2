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
  /** Percentiles of 2xx response times, measured to the microsecond (autocannon's own are whole ms). */
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly mean: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  /** Highest VmRSS of the target process during this run, in MiB. */
  readonly peakRssMib: number | null
  /** CPU time (user + system) the target process used per response during this run, in µs. */
  readonly cpuMicrosPerRequest: number | null
}

export interface LoadPlan {
  readonly body: string
  readonly connections: number
  readonly durationSeconds: number
  readonly warmupSeconds: number
}

/** A warm-up run (discarded), then the measured run, both bounded by their durations. */
export const runLoad = async (target: Target, plan: LoadPlan): Promise<LoadResult> => {
  if (plan.warmupSeconds > 0) await drive(target, plan, plan.warmupSeconds, [])
  const rss = target.pid === null ? null : sampleRss(target.pid)
  const cpuBefore = target.pid === null ? null : cpuTimeMs(target.pid)
  const times: Array<number> = []
  const result = await drive(target, plan, plan.durationSeconds, times)
  const cpuAfter = target.pid === null ? null : cpuTimeMs(target.pid)
  const peakRssMib = rss?.stop() ?? null
  const responses = result["2xx"] + result.non2xx
  const sorted = Float64Array.from(times).sort()
  return {
    target: target.name,
    connections: plan.connections,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.average,
    responses,
    latencyMs: {
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      mean: times.length === 0 ? Number.NaN : times.reduce((sum, time) => sum + time, 0) / times.length
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    peakRssMib,
    cpuMicrosPerRequest: cpuBefore === null || cpuAfter === null || responses === 0
      ? null
      : ((cpuAfter - cpuBefore) * 1000) / responses
  }
}

const drive = (target: Target, plan: LoadPlan, seconds: number, times: Array<number>) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: target.url,
      method: "POST",
      headers: { ...target.headers },
      body: plan.body,
      connections: plan.connections,
      pipelining: 1,
      duration: seconds,
      timeout: 10
    }, (error: unknown, result: autocannon.Result) => error ? reject(error) : resolve(result))
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) times.push(responseTime)
    })
  })

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
