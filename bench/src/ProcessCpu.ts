import { readFileSync } from "node:fs"

/** Clock ticks per second of /proc's utime and stime: 100 on Linux (USER_HZ). */
const TICKS_PER_SECOND = 100

/**
 * CPU time a process has used so far (user + system), in ms, from /proc/<pid>/stat; null off
 * Linux. Read before and after a run, the difference over the requests answered is the CPU each
 * cost: a figure the shared machine's noise moves much less than throughput.
 */
export const cpuTimeMs = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // the command name (field 2) may hold spaces: count fields after its closing parenthesis
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const utime = Number(fields[11])
    const stime = Number(fields[12])
    return Number.isFinite(utime) && Number.isFinite(stime) ? ((utime + stime) * 1000) / TICKS_PER_SECOND : null
  } catch {
    return null
  }
}
