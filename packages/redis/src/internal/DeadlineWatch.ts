/**
 * One deadline watch over a store's operations in flight, instead of a race and a timer for each
 * (`Effect.timeoutOption`: two fibers and a timer an operation, about 3.2 µs of CPU; this, one
 * fiber and a set entry, about 1.1 µs). Every operation gets the same deadline, so the one started first is
 * always the first due: a single fiber sleeps until the oldest operation's deadline, cuts short
 * those that are due, and sleeps again until the next, or until an operation starts while none is
 * in flight. Under load it wakes about once a deadline, whatever the number of operations.
 */
import { Clock, Deferred, Duration, Effect, Exit, Option, type Scope } from "effect"

/** The operations of one store, bounded by one deadline. */
export interface DeadlineWatch {
  /** Runs `operation`; `None` (and `operation` interrupted) once the deadline passes first. */
  readonly bound: <A, E, R>(operation: Effect.Effect<A, E, R>) => Effect.Effect<Option.Option<A>, E, R>
}

/** An operation in flight: when it is due (monotonic nanoseconds), and how to cut it short. */
interface InFlight {
  readonly due: bigint
  readonly expire: () => void
}

/** The watch over operations bounded by `deadline`; its fiber lives in the current scope. */
export const make = (deadline: Duration.Duration): Effect.Effect<DeadlineWatch, never, Scope.Scope> =>
  Effect.gen(function*() {
    if (!Duration.isFinite(deadline)) return { bound: (operation) => Effect.map(operation, Option.some) }
    const clock = yield* Clock.Clock
    // monotonic: a wall clock set forward must not cut every operation in flight short
    const nanos = Duration.toNanosUnsafe(deadline)
    // a Set keeps insertion order: its first entry is the oldest, hence the first due
    const inFlight = new Set<InFlight>()
    /** Set while the watch waits for an operation to start. */
    let idle: Deferred.Deferred<void> | undefined

    const watch = Effect.gen(function*() {
      while (true) {
        const oldest = inFlight.values().next()
        if (oldest.done) {
          const started = Deferred.makeUnsafe<void>()
          idle = started
          yield* Deferred.await(started)
          continue
        }
        const wait = oldest.value.due - clock.monotonicTimeNanosUnsafe()
        if (wait > 0n) {
          yield* Effect.sleep(Duration.nanos(wait))
          continue
        }
        inFlight.delete(oldest.value)
        oldest.value.expire()
      }
    })
    yield* Effect.forkScoped(watch)

    const bound = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<Option.Option<A>, E, R> =>
      Effect.flatMap(Effect.forkChild(operation, { startImmediately: true }), (fiber) => {
        const done = fiber.pollUnsafe()
        if (done !== undefined) return Effect.map(done, Option.some)
        return Effect.callback<Option.Option<A>, E>((resume) => {
          const entry: InFlight = {
            due: clock.monotonicTimeNanosUnsafe() + nanos,
            expire: () => {
              stopObserving()
              fiber.interruptUnsafe()
              resume(Effect.succeedNone)
            }
          }
          inFlight.add(entry)
          if (idle !== undefined) {
            Deferred.doneUnsafe(idle, Exit.void)
            idle = undefined
          }
          const stopObserving = fiber.addObserver((exit) => {
            inFlight.delete(entry)
            resume(Effect.map(exit, Option.some))
          })
          // the caller was interrupted: so is its operation
          return Effect.sync(() => {
            inFlight.delete(entry)
            stopObserving()
            fiber.interruptUnsafe()
          })
        })
      })

    const watching: DeadlineWatch = { bound }
    return watching
  })
