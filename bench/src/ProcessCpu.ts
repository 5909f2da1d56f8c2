import { readFileSync } from "node:fs"

/** Clock ticks per second of /proc's utime and stime: 100 on Linux (USER_HZ). */
const TICKS_PER_SECOND = 100

/**
 * CPU time a process has used so far (user + system), in ms, from /proc/<pid>/stat; null off
 * Linux. Read before and after a run, the difference over the requests answered is the CPU each
 * cost: a figure the shared machine's noise moves much less than throughput.
 */
export const cpuTimeMs = (pid: number): number | null => ticksMs(pid, 11)

/**
 * CPU time used so far by this process's children that have ended and been waited for (a wrk
 * run, once its `execFile` has returned), in ms; null off Linux.
 */
export const endedChildrenCpuTimeMs = (): number | null => ticksMs("self", 13)

/** The sum, in ms, of the two tick counts of /proc/<pid>/stat from field `first` (after the name). */
const ticksMs = (pid: number | "self", first: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // the command name (field 2) may hold spaces: count fields after its closing parenthesis
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const user = Number(fields[first])
    const system = Number(fields[first + 1])
    return Number.isFinite(user) && Number.isFinite(system) ? ((user + system) * 1000) / TICKS_PER_SECOND : null
  } catch {
    return null
  }
}
