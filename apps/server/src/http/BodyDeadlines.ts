/**
 * Time limits on request bodies, kept by one sweeper for the whole server instead of a timer
 * race per request: `Effect.timeoutOrElse` forks two fibers per body (measured: 7 KB of garbage
 * per request, a sixth of the hot path's), while a body nearly always arrives within
 * milliseconds. The sweeper wakes every `SWEEP_MS` on the Effect clock (so tests drive it with
 * TestClock) and expires what is overdue; a limit is met to within one sweep.
 */
import { Clock, Context, Effect, Layer } from "effect"

/** How late past its limit a body may be refused; small against limits counted in seconds. */
const SWEEP_MS = 100

interface Deadline {
  readonly at: number
  readonly expire: () => void
}

export class BodyDeadlines extends Context.Service<BodyDeadlines, {
  /** Calls `expire` once `timeoutMs` has passed, unless the returned function is called first. */
  readonly start: (timeoutMs: number, expire: () => void) => () => void
}>()("@switchyard/server/BodyDeadlines") {
  static readonly layer: Layer.Layer<BodyDeadlines> = Layer.effect(
    BodyDeadlines,
    Effect.gen(function*() {
      const clock = yield* Clock.Clock
      const pending = new Set<Deadline>()
      const sweep = Effect.sync(() => {
        const now = clock.currentTimeMillisUnsafe()
        for (const deadline of pending) {
          if (deadline.at > now) continue
          pending.delete(deadline)
          deadline.expire()
        }
      })
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(SWEEP_MS), sweep)))
      return BodyDeadlines.of({
        start: (timeoutMs, expire) => {
          const deadline: Deadline = { at: clock.currentTimeMillisUnsafe() + timeoutMs, expire }
          pending.add(deadline)
          return () => pending.delete(deadline)
        }
      })
    })
  )
}
