/**
 * Load from wrk (Debian's `wrk`), a C load generator, in place of autocannon. On a two-core
 * machine the load generator shares the CPUs with the servers it measures: autocannon, in the
 * bench's own Node process, spends several times wrk's CPU on each request, which the fastest
 * targets would otherwise have had.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import type { Drive } from "./LoadRun.ts"
import { endedChildrenCpuTimeMs } from "./ProcessCpu.ts"

const run = promisify(execFile)

/** Whether `wrk` is on the PATH. */
export const wrkInstalled = async (): Promise<boolean> => {
  try {
    await run("sh", ["-c", "command -v wrk"])
    return true
  } catch {
    return false
  }
}

/**
 * `text` as a Lua string literal, byte for byte: printable ASCII as it is, every other byte of its
 * UTF-8 (and `"`, `\`) as a three-digit decimal escape, which LuaJIT's Lua 5.1 reads back exactly
 * (a long string would turn a carriage return into a newline).
 */
export const luaString = (text: string): string => {
  let literal = ""
  for (const byte of Buffer.from(text, "utf8")) {
    literal += byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c
      ? String.fromCharCode(byte)
      : `\\${String(byte).padStart(3, "0")}`
  }
  return `"${literal}"`
}

/**
 * The script wrk runs: the request, and a `done` that prints the summary as one JSON line
 * (latencies in µs, from wrk's own histogram, of every response).
 */
export const wrkScript = (headers: Readonly<Record<string, string>>, body: string): string =>
  [
    `wrk.method = "POST"`,
    `wrk.body = ${luaString(body)}`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
    `done = function(summary, latency, requests)`,
    `  local e = summary.errors`,
    `  io.write(string.format('\\nWRK_SUMMARY {"requests":%d,"durationMicros":%d,"connect":%d,"read":%d,"write":%d,` +
    `"status":%d,"timeout":%d,"p50":%d,"p99":%d,"mean":%f}\\n',`,
    `    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,`,
    `    latency:percentile(50), latency:percentile(99), latency.mean))`,
    `end`,
    ``
  ].join("\n")

interface WrkSummary {
  readonly requests: number
  readonly durationMicros: number
  readonly connect: number
  readonly read: number
  readonly write: number
  /** Answers with a status of 400 or more. */
  readonly status: number
  readonly timeout: number
  readonly p50: number
  readonly p99: number
  readonly mean: number
}

/** Reads the summary line `wrkScript`'s `done` prints. */
export const parseWrkSummary = (output: string): WrkSummary => {
  const line = output.split("\n").find((text) => text.startsWith("WRK_SUMMARY "))
  if (line === undefined) throw new Error(`wrk printed no summary:\n${output}`)
  return JSON.parse(line.slice("WRK_SUMMARY ".length)) as WrkSummary
}

/** One wrk run: one thread, `connections` keep-alive connections, `seconds` long. */
export const driveWrk: Drive = async (target, body, connections, seconds) => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-wrk-"))
  try {
    const script = join(dir, "request.lua")
    writeFileSync(script, wrkScript(target.headers, body))
    const cpuBefore = endedChildrenCpuTimeMs()
    const { stdout } = await run(
      "wrk",
      ["--threads", "1", "--connections", String(connections), "--duration", `${seconds}s`, "--timeout", "10s"]
        .concat(["--script", script, target.url]),
      { maxBuffer: 1024 * 1024 }
    )
    const cpuAfter = endedChildrenCpuTimeMs()
    const summary = parseWrkSummary(stdout)
    const durationSeconds = summary.durationMicros / 1e6
    return {
      // the children this process waited for meanwhile: wrk alone (the servers are still running)
      generatorCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      durationSeconds,
      requestsPerSecond: summary.requests / durationSeconds,
      responses: summary.requests,
      latencyMs: { p50: summary.p50 / 1000, p99: summary.p99 / 1000, mean: summary.mean / 1000 },
      errors: summary.connect + summary.read + summary.write + summary.timeout,
      timeouts: summary.timeout,
      non2xx: summary.status
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
