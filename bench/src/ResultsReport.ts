import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { LoadResult } from "./LoadRun.ts"
import type { StreamingResult } from "./StreamingCheck.ts"

/** How a target compares with the bare proxy at the same connection count. */
export interface Comparison {
  readonly target: string
  readonly connections: number
  readonly throughputRatio: number
  readonly addedP50Ms: number
}

export const compareWithBaseline = (
  results: ReadonlyArray<LoadResult>,
  baseline: string
): ReadonlyArray<Comparison> =>
  results.flatMap((result) => {
    const base = results.find((other) => other.target === baseline && other.connections === result.connections)
    if (base === undefined || result.target === baseline) return []
    return [{
      target: result.target,
      connections: result.connections,
      throughputRatio: result.requestsPerSecond / base.requestsPerSecond,
      addedP50Ms: result.latencyMs.p50 - base.latencyMs.p50
    }]
  })

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, column) => column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))
      .join("  ")
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n")
}

const fixed = (value: number | null, digits: number) =>
  value === null || Number.isNaN(value) ? "-" : value.toFixed(digits)

export const loadTable = (results: ReadonlyArray<LoadResult>): string =>
  table(
    ["target", "conns", "req/s", "p50 ms", "p99 ms", "errors", "non-2xx", "peak RSS MiB", "CPU µs/req"],
    results.map((result) => [
      result.target,
      String(result.connections),
      fixed(result.requestsPerSecond, 0),
      fixed(result.latencyMs.p50, 3),
      fixed(result.latencyMs.p99, 3),
      String(result.errors),
      String(result.non2xx),
      fixed(result.peakRssMib, 1),
      fixed(result.cpuMicrosPerRequest, 0)
    ])
  )

export const comparisonTable = (comparisons: ReadonlyArray<Comparison>, baseline: string): string =>
  table(
    ["target", "conns", `req/s ÷ ${baseline}`, "added p50 ms"],
    comparisons.map((comparison) => [
      comparison.target,
      String(comparison.connections),
      fixed(comparison.throughputRatio, 2),
      `${comparison.addedP50Ms >= 0 ? "+" : ""}${fixed(comparison.addedP50Ms, 3)}`
    ])
  )

export const streamingTable = (results: ReadonlyArray<StreamingResult>): string =>
  table(
    ["target", "status", "first chunk ms", "total ms", "chunks", "[DONE]"],
    results.map((result) => [
      result.target,
      String(result.status),
      fixed(result.firstChunkMs, 1),
      fixed(result.totalMs, 1),
      String(result.chunksReceived),
      result.completed ? "yes" : "no"
    ])
  )

/** Writes `report` to `<dir>/<timestamp>.json` and returns the path. */
export const writeResultsFile = (dir: string, report: unknown): string => {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${new Date().toISOString().replaceAll(":", "-").replace(/\.\d+Z$/, "Z")}.json`)
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`)
  return path
}
