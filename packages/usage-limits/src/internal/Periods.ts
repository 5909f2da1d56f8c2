/**
 * The counting periods of `periodic_reset`: a calendar month or an ISO week (from Monday), in
 * UTC. A counter is keyed by its period, so a new period starts from zero without any job
 * resetting it, on every replica at the same instant.
 */

export type PeriodicReset = "monthly" | "weekly" | null

export interface Period {
  /** Part of the counter key: `all`, `m2026-11`, `w2026-11-23`. */
  readonly id: string
  /** When the period began (epoch ms); undefined for a cumulative limit. */
  readonly start: number | undefined
  /** When the next period begins (epoch ms); undefined for a cumulative limit, which never ends. */
  readonly end: number | undefined
}

const DAY = 86_400_000

const cumulative: Period = { id: "all", start: undefined, end: undefined }

export const periodAt = (reset: PeriodicReset, now: number): Period => {
  if (reset === null) return cumulative
  const date = new Date(now)
  if (reset === "monthly") {
    const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
    const end = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)
    return { id: `m${new Date(start).toISOString().slice(0, 7)}`, start, end }
  }
  // getUTCDay: 0 is Sunday; an ISO week starts on Monday
  const midnight = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
  const start = midnight - ((date.getUTCDay() + 6) % 7) * DAY
  return { id: `w${new Date(start).toISOString().slice(0, 10)}`, start, end: start + 7 * DAY }
}
