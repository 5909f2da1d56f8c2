import type { GatewayError } from "@switchyard/core"
import type { ThreadRun } from "@switchyard/protocol"
import { Effect } from "effect"
import type { Caller, ThreadStore } from "../ThreadStore.ts"
import { LEASE_SECONDS, unix } from "./RunTimes.ts"

/**
 * A sweep: expires the runs past `expires_at` that wait on their caller, and takes over the runs
 * no process holds (a queued one is started here, one that was working is failed).
 */
export const make = (deps: {
  readonly store: ThreadStore["Service"]
  readonly start: (workspaceId: string, run: ThreadRun.ThreadRun, caller: Caller) => Effect.Effect<void>
}): (ignoreLeases: boolean) => Effect.Effect<void, GatewayError.InternalError> => {
  const { store, start } = deps

  const sweepWith = (ignoreLeases: boolean) =>
    Effect.gen(function*() {
      const now = yield* unix
      for (const { run, workspaceId } of yield* store.waitingRuns(now)) {
        yield* store.updateRun(workspaceId, { ...run, status: "expired", required_action: null }, null, {
          onlyIf: "requires_action"
        })
      }
      const taken = yield* store.takeAbandoned(now, now + LEASE_SECONDS, { ignoreLeases })
      for (const { workspaceId, run, caller } of taken) {
        if (run.status === "queued") {
          yield* start(workspaceId, run, caller)
        } else {
          yield* store.updateRun(
            workspaceId,
            {
              ...run,
              status: "failed",
              failed_at: now,
              last_error: {
                code: "server_error",
                message: "the gateway process running this run stopped before it ended; " +
                  "its call is not repeated, so the provider is not charged twice: start a new run"
              }
            },
            null,
            { onlyIf: "in_progress" }
          )
        }
      }
    })

  return sweepWith
}
