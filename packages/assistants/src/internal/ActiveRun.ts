import { GatewayError } from "@switchyard/core"
import type { ThreadRun } from "@switchyard/protocol"
import { Effect, Option } from "effect"
import { ThreadStore } from "../ThreadStore.ts"

/** The statuses of a run that has not ended. */
export const ACTIVE: ReadonlySet<ThreadRun.RunStatus> = new Set([
  "queued",
  "in_progress",
  "requires_action",
  "cancelling"
])

/**
 * The thread's run that has not ended, if any: while it works, the thread takes no new run nor
 * message (its conversation is what the run sends).
 */
export const activeRun = (
  workspaceId: string,
  threadId: string
): Effect.Effect<Option.Option<ThreadRun.ThreadRun>, GatewayError.GatewayError, ThreadStore> =>
  ThreadStore.use((store) =>
    Effect.map(
      store.listRuns(workspaceId, threadId, { limit: 1, order: "desc" }),
      (page) => Option.filter(Option.fromUndefinedOr(page.data[0]), (run) => ACTIVE.has(run.status))
    )
  )

/** A thread already running: 400, as the common assistants format answers. */
export const busy = (threadId: string, active: ThreadRun.ThreadRun) =>
  new GatewayError.InvalidRequest({
    message: `thread_id: thread ${threadId} already has an active run ${active.id} (${active.status})`,
    param: "thread_id"
  })
