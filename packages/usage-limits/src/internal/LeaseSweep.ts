/**
 * The background sweep that gives back lapsed reservation leases in the counters replicas share.
 * A reservation gives back the lapsed leases of the counters it touches; a counter no request
 * touches again (a value key never seen again, a killed replica's last request) would keep its
 * lapsed leases, and the amounts they hold, for good. The sweep finds those.
 *
 * It runs an interval after a reservation, and again an interval later while reservations go on
 * or a run left work for the next: lapsed leases only appear while requests run, so an idle
 * gateway never wakes for it, and the first reservation after a pause sweeps what the pause left.
 */
import { Duration, Effect, FiberSet, type Scope } from "effect"

/** How long after a reservation the sweep runs, and its pace while reservations go on. */
export const INTERVAL = Duration.minutes(1)

/** What one run did: whether it stopped at its bound with more to do. */
export type Outcome = "done" | "more"

/**
 * Answers the function a reservation calls (cheap: a flag) to have the sweep run {@link INTERVAL}
 * later. The runs live in the current scope, so they stop with the counters' layer.
 */
export const make = (
  store: string,
  sweep: Effect.Effect<Outcome, unknown>
): Effect.Effect<() => void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntime()
    let scheduled = false
    let reservedSince = false
    const schedule = () => {
      scheduled = true
      reservedSince = false
      run(Effect.andThen(
        Effect.sleep(INTERVAL),
        sweep.pipe(
          // a failed run is tried again after the next reservation, with what it left
          Effect.catchCause((cause) =>
            Effect.as(Effect.logWarning(`usage counters (${store}): lease sweep failed`, cause), "done" as const)
          ),
          Effect.map((outcome) => {
            scheduled = false
            if (outcome === "more" || reservedSince) schedule()
          })
        )
      ))
    }
    return () => {
      if (scheduled) reservedSince = true
      else schedule()
    }
  })
