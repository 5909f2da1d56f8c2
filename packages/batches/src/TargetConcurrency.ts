/**
 * How many batch lines one provider target has in flight at once in this process, over every
 * batch and every taker, and the pause a target's 429 puts on its lines. A batch's lines go where
 * its kept provider selection says (`targetOf`), so batches created with the same provider and
 * credentials share one bound: ten batches against one API key do not send ten times as much.
 *
 * The bound is per process: N workers on one Postgres send at most N × `maxPerTarget` lines to a
 * target at once. (A batch's own bound, `maxLinesInFlight`, is global: it is kept in the queue.)
 *
 * @example
 * import { TargetConcurrency } from "@switchyard/batches"
 * import { Effect } from "effect"
 *
 * const answered = Effect.gen(function*() {
 *   const targets = yield* TargetConcurrency.make(8)
 *   const target = TargetConcurrency.targetOf("default", { "x-gateway-provider": "openai", authorization: "Bearer sk" })
 *   return yield* targets.run(target, Effect.succeed("the provider's answer"))
 * })
 */
import { Clock, Duration, Effect, Semaphore } from "effect"
import { createHash } from "node:crypto"

/**
 * Lines in flight per target per process unless told otherwise: what one worker sent in all
 * before targets were bounded, so a batch on one target runs as fast as it did, while a worker's
 * other takers (`BatchWorker.DEFAULT_CONCURRENCY`) stay free for the lines of other targets.
 */
export const DEFAULT_MAX_PER_TARGET = 16

/** How long a target is paused after a 429 that says nothing of when to come back. */
export const DEFAULT_PAUSE_SECONDS = 1

/**
 * The target a batch's kept selection headers name: provider, custom host, credentials, config and
 * virtual key (not its metadata or timeout), hashed so no credential is kept in memory as a key.
 * A virtual key, a stored config id or an `@integration` is the workspace's own, so the workspace
 * is part of the target then.
 */
export const targetOf = (workspaceId: string, selection: Readonly<Record<string, string>>): string => {
  const provider = selection["x-gateway-provider"]
  const config = selection["x-gateway-config"]
  const virtualKey = selection["x-gateway-virtual-key"]
  const stored = virtualKey !== undefined || provider?.startsWith("@") === true ||
    (config !== undefined && !config.trimStart().startsWith("{"))
  const named = [
    stored ? workspaceId : null,
    provider ?? null,
    selection["x-gateway-custom-host"] ?? null,
    selection.authorization ?? null,
    config ?? null,
    virtualKey ?? null
  ]
  return createHash("sha256").update(JSON.stringify(named)).digest("base64url")
}

export interface TargetConcurrency {
  /** Runs `effect` once `target` has a free slot and is not paused. */
  readonly run: <A, E, R>(target: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** No line of `target` starts for `seconds` (a 429's Retry-After); a longer pause already set stays. */
  readonly slowDown: (target: string, seconds: number) => Effect.Effect<void>
}

interface Slot {
  readonly semaphore: Semaphore.Semaphore
  pausedUntil: number
  /** Lines waiting or running: the slot is forgotten when none is and it is not paused. */
  users: number
}

/** A bound of `maxPerTarget` lines in flight per target. */
export const make = (maxPerTarget: number): Effect.Effect<TargetConcurrency> =>
  Effect.sync(() => {
    const slots = new Map<string, Slot>()

    const slotOf = (target: string): Slot => {
      let slot = slots.get(target)
      if (slot === undefined) {
        slot = { semaphore: Semaphore.makeUnsafe(maxPerTarget), pausedUntil: 0, users: 0 }
        slots.set(target, slot)
      }
      return slot
    }

    const forget = (target: string, slot: Slot, now: number) => {
      if (slot.users === 0 && slot.pausedUntil <= now && slots.get(target) === slot) slots.delete(target)
    }

    /** Sleeps until the target's pause is over, again if a line running meanwhile paused it further. */
    const unpaused = (slot: Slot): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        slot.pausedUntil <= now
          ? Effect.void
          : Effect.andThen(Effect.sleep(Duration.millis(slot.pausedUntil - now)), Effect.suspend(() => unpaused(slot))))

    const run = <A, E, R>(target: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const slot = slotOf(target)
        slot.users += 1
        // the pause is checked with the slot held: a 429 seen while this line waited for it still applies
        return Semaphore.withPermit(slot.semaphore, Effect.andThen(unpaused(slot), effect)).pipe(
          Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.sync(() => {
              slot.users -= 1
              forget(target, slot, now)
            })))
        )
      })

    const slowDown = (target: string, seconds: number): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          const slot = slotOf(target)
          slot.pausedUntil = Math.max(slot.pausedUntil, now + Math.round(seconds * 1000))
        }))

    return { run, slowDown }
  })
