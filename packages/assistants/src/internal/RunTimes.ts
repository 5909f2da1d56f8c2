/** How long a run may wait and work, how long a process holds one, and the clock runs are timed by. */
import { Duration, Effect } from "effect"

/** How long a run may wait or work before it expires, as the common format has it. */
export const EXPIRES_AFTER_SECONDS = 600
/** How long a process holds a run it executes without renewing the lease. */
export const LEASE_SECONDS = 60
/** How often the lease is renewed and abandoned runs are looked for. */
export const SWEEP_INTERVAL = Duration.seconds(20)
/**
 * How long a stopping process lets the runs it works on finish. One still working then is
 * interrupted; its lease lapses and a sweep (after a restart, or another replica's) ends it.
 */
export const STOP_WAIT = Duration.seconds(10)

/** The time now in unix seconds, as run objects carry it. */
export const unix = Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (ms) => Math.floor(ms / 1000))
