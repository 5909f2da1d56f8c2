/**
 * The five assistants tables, the stored shape of a run's caller, and the reads the store's
 * parts share: a thread or run in its scope, and the thread's active run under its row lock.
 */
import { type GatewayError, RandomBytes } from "@switchyard/core"
import { Assistant, RunStep, StoredObjectRequests, Thread, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { Clock, Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as ObjectTable from "./ObjectTable.ts"

/** The principal a run was created by, so a run resumed in the background is made as them. */
export const Caller = Schema.Struct({
  keyId: Schema.String,
  scopes: Schema.Array(StoredObjectRequests.Scope),
  expiresAt: Schema.optionalKey(Schema.Number)
})
export type Caller = typeof Caller.Type
/** A caller as its column holds it: JSON. */
export const CallerJson = Schema.fromJsonString(Caller)

/**
 * An object id in the common format's style: `asst_…`, `thread_…`, `msg_…`, `run_…`, `step_…`,
 * time-ordered (`RandomBytes.timeOrderedHex`) so that the tables' indexes on ids grow at their end.
 */
export const newId = (prefix: "asst" | "thread" | "msg" | "run" | "step" | "call"): string =>
  `${prefix}_${RandomBytes.timeOrderedHex()}`

/** The time now in unix seconds, as objects carry it. */
export const unix = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const decodeBodies = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ body: Schema.fromJsonString(ThreadRun.ThreadRun) }))
)

/** The tables, over one connection, and the reads the store's parts share. */
export const make = (sql: SqlClient.SqlClient) => {
  const assistants = ObjectTable.make(sql, {
    name: "assistants",
    parent: undefined,
    noun: "assistant",
    schema: Assistant.Assistant
  })
  const threads = ObjectTable.make(sql, {
    name: "threads",
    parent: undefined,
    noun: "thread",
    schema: Thread.Thread
  })
  const messages = ObjectTable.make(sql, {
    name: "thread_messages",
    parent: "thread_id",
    noun: "message",
    schema: ThreadMessage.ThreadMessage
  })
  const runs = ObjectTable.make(sql, {
    name: "thread_runs",
    parent: "thread_id",
    noun: "run",
    schema: ThreadRun.ThreadRun
  })
  const steps = ObjectTable.make(sql, {
    name: "run_steps",
    parent: "run_id",
    noun: "run step",
    schema: RunStep.RunStep
  })

  const ensureWorkspace = (workspaceId: string, at: number) =>
    ObjectTable.internal(
      sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspaceId}, ${workspaceId}, ${at})
            ON CONFLICT (id) DO NOTHING`
    )

  const thread = (workspaceId: string, threadId: string) => threads.find({ workspaceId }, threadId)
  const run = (workspaceId: string, threadId: string, id: string) =>
    Effect.andThen(thread(workspaceId, threadId), runs.find({ workspaceId, parentId: threadId }, id))

  /** The thread's run that has not ended, read under the thread's row lock (a write to it). */
  const lockedActiveRun = (
    threadId: string
  ): Effect.Effect<Option.Option<ThreadRun.ThreadRun>, GatewayError.InternalError> =>
    Effect.gen(function*() {
      yield* ObjectTable.internal(sql`UPDATE threads SET position = position WHERE id = ${threadId}`)
      const [active] = yield* ObjectTable.internal(
        sql`SELECT body FROM thread_runs WHERE thread_id = ${threadId}
              AND status IN ('queued', 'in_progress', 'requires_action', 'cancelling') LIMIT 1`.pipe(
          Effect.flatMap(decodeBodies)
        )
      )
      return Option.fromUndefinedOr(active?.body)
    })

  return { sql, assistants, threads, messages, runs, steps, ensureWorkspace, thread, run, lockedActiveRun }
}

export type ThreadTables = ReturnType<typeof make>
