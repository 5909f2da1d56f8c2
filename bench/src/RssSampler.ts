import { readFileSync } from "node:fs"

/** Samples a process's resident memory from /proc (Linux only; elsewhere every reading is null). */
export interface RssSampler {
  /** Stops sampling; returns the highest VmRSS seen, in MiB. */
  readonly stop: () => number | null
}

export const sampleRss = (pid: number, everyMs = 100): RssSampler => {
  let peak: number | null = readKib(pid, "VmRSS")
  const timer = setInterval(() => {
    const now = readKib(pid, "VmRSS")
    if (now !== null && (peak === null || now > peak)) peak = now
  }, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      return peak === null ? null : peak / 1024
    }
  }
}

/** The process's peak resident memory since it started (VmHWM), in MiB. */
export const highWaterMarkMib = (pid: number): number | null => {
  const kib = readKib(pid, "VmHWM")
  return kib === null ? null : kib / 1024
}

const readKib = (pid: number, field: "VmRSS" | "VmHWM"): number | null => {
  try {
    const match = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"))
    return match?.[1] === undefined ? null : Number(match[1])
  } catch {
    return null
  }
}
