import { Clock, Effect } from "effect"
import { type CounterStoreError, UsageCounters } from "../UsageCounters.ts"
import type { UsagePolicy } from "../UsagePolicies.ts"
import * as Periods from "./Periods.ts"

/**
 * A policy's `value_key_usage_map` (extensions.md): per value key of the current period and
 * epoch, its usage, when it was last reset (the period's start, or the last reset, whichever is
 * later; null for a cumulative limit never reset) and whether its alert was raised.
 */
export const usageMap = (
  policy: UsagePolicy
): Effect.Effect<
  Record<string, { readonly usage: number; readonly last_reset_at: string | null; readonly alerted: boolean }>,
  CounterStoreError,
  UsageCounters
> =>
  Effect.gen(function*() {
    const period = Periods.periodAt(policy.periodicReset, yield* Clock.currentTimeMillis)
    const counters = yield* (yield* UsageCounters).usage(
      policy.workspaceId,
      `${policy.id}:${policy.epoch}:${period.id}`
    )
    const resetAt = Math.max(period.start ?? 0, policy.resetAt ?? 0)
    const lastResetAt = resetAt === 0 ? null : new Date(resetAt).toISOString()
    const map: Record<string, { usage: number; last_reset_at: string | null; alerted: boolean }> = {}
    for (const counter of counters) {
      map[counter.valueKey] = { usage: counter.usage, last_reset_at: lastResetAt, alerted: counter.alerted }
    }
    return map
  })
