import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { type LoadResult, medianRun } from "./LoadRun.ts"
import type { StreamingResult } from "./StreamingCheck.ts"

/** How a target compares with the bare proxy at the same connection count. */
export interface Comparison {
  readonly target: string
  readonly connections: number
  /** Of the two reported runs (each target's run of median throughput). */
  readonly throughputRatio: number
  readonly addedP50Ms: number
  /**
   * The median over rounds of the ratio within each round, `null` with one round. Two targets of
   * one round ran minutes apart at most, so a slow spell of the machine moves both: steadier than
   * the ratio of two medians taken from different rounds.
   */
  readonly roundThroughputRatio: number | null
  readonly roundAddedP50Ms: number | null
}

/** The median of `values` (of an even number, the mean of the two middle ones); `null` of none. */
export const median = (values: ReadonlyArray<number>): number | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1
    ? sorted[middle] ?? null
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

/**
 * Each target against `baseline` at one connection count. `rounds` holds every target's runs in
 * round order (as the bench ran them: each round, every target once); each target is reported by
 * its run of median throughput ({@link medianRun}), and by the medians of its per-round figures.
 */
export const compareWithBaseline = (
  rounds: ReadonlyArray<ReadonlyArray<LoadResult>>,
  baseline: string
): ReadonlyArray<Comparison> => {
  const baseRuns = rounds.find((runs) => runs[0]?.target === baseline) ?? []
  const base = medianRun(baseRuns)
  if (base === undefined) return []
  return rounds.flatMap((runs) => {
    const result = medianRun(runs)
    if (result === undefined || result.target === baseline) return []
    const paired = runs.flatMap((run, round) => {
      const baseRun = baseRuns[round]
      return baseRun === undefined ? [] : [{ run, baseRun }]
    })
    const perRound = paired.length > 1
    return [{
      target: result.target,
      connections: result.connections,
      throughputRatio: result.requestsPerSecond / base.requestsPerSecond,
      addedP50Ms: result.latencyMs.p50 - base.latencyMs.p50,
      roundThroughputRatio: perRound
        ? median(paired.map(({ baseRun, run }) => run.requestsPerSecond / baseRun.requestsPerSecond))
        : null,
      roundAddedP50Ms: perRound
        ? median(paired.map(({ baseRun, run }) => run.latencyMs.p50 - baseRun.latencyMs.p50))
        : null
    }]
  })
}

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
    [
      "target",
      "conns",
      "req/s",
      "p50 ms",
      "p99 ms",
      "errors",
      "non-2xx",
      "peak RSS MiB",
      "CPU µs/req",
      "load gen µs/req"
    ],
    results.map((result) => [
      result.target,
      String(result.connections),
      fixed(result.requestsPerSecond, 0),
      fixed(result.latencyMs.p50, 3),
      fixed(result.latencyMs.p99, 3),
      String(result.errors),
      String(result.non2xx),
      fixed(result.peakRssMib, 1),
      fixed(result.cpuMicrosPerRequest, 0),
      fixed(result.generatorCpuMicrosPerRequest, 0)
    ])
  )

const signed = (value: number | null, digits: number) =>
  value === null || Number.isNaN(value) ? "-" : `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`

export const comparisonTable = (comparisons: ReadonlyArray<Comparison>, baseline: string): string =>
  table(
    ["target", "conns", `req/s ÷ ${baseline}`, "added p50 ms", "per round: req/s ÷", "added p50 ms"],
    comparisons.map((comparison) => [
      comparison.target,
      String(comparison.connections),
      fixed(comparison.throughputRatio, 2),
      signed(comparison.addedP50Ms, 3),
      fixed(comparison.roundThroughputRatio, 2),
      signed(comparison.roundAddedP50Ms, 3)
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
