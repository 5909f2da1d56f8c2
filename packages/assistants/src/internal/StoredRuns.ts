import { ThreadRun } from "@switchyard/protocol"
import { Effect, Option, Schema } from "effect"
import type { StoredRun, ThreadStore } from "../ThreadStore.ts"
import * as ObjectTable from "./ObjectTable.ts"
import { CallerJson, type ThreadTables } from "./ThreadTables.ts"

const encodeCaller = Schema.encodeSync(CallerJson)
const decodeCaller = Schema.decodeUnknownEffect(CallerJson)
const RunRow = Schema.Struct({ caller: Schema.String })
const decodeRunRows = Schema.decodeUnknownEffect(Schema.Array(RunRow))
const decodeWaitingRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  workspace_id: Schema.String,
  body: Schema.fromJsonString(ThreadRun.ThreadRun),
  caller: CallerJson
})))
const IdRow = Schema.Struct({ id: Schema.String, workspace_id: Schema.String })
const decodeIdRows = Schema.decodeUnknownEffect(Schema.Array(IdRow))

/**
 * The store's runs and their steps: who started each run, and the lease by which one process at
 * a time holds a run it executes.
 */
export const make = (
  tables: ThreadTables
): Pick<
  ThreadStore["Service"],
  | "insertRun"
  | "insertRunIfIdle"
  | "getRun"
  | "listRuns"
  | "updateRun"
  | "requeueRun"
  | "modifyRun"
  | "renewLease"
  | "takeAbandoned"
  | "waitingRuns"
  | "insertStep"
  | "updateStep"
  | "getStep"
  | "listSteps"
> => {
  const { sql, runs, steps, thread, run, lockedActiveRun } = tables
  return {
    insertRun: (workspaceId, created, caller, leaseUntil) =>
      runs.insert({ workspaceId, parentId: created.thread_id }, created, created.created_at, {
        status: created.status,
        lease_until: leaseUntil,
        caller: encodeCaller(caller)
      }),
    insertRunIfIdle: (workspaceId, created, caller, leaseUntil) =>
      ObjectTable.transaction(
        sql,
        Effect.gen(function*() {
          // the lock lasts until the transaction ends (SQLite: the database's), so creates take turns
          const active = yield* lockedActiveRun(created.thread_id)
          if (Option.isSome(active)) return active
          yield* runs.insert({ workspaceId, parentId: created.thread_id }, created, created.created_at, {
            status: created.status,
            lease_until: leaseUntil,
            caller: encodeCaller(caller)
          })
          return Option.none()
        })
      ),
    getRun: (workspaceId, threadId, id) =>
      Effect.gen(function*() {
        const found = yield* run(workspaceId, threadId, id)
        const [row] = yield* ObjectTable.internal(
          sql`SELECT caller FROM thread_runs WHERE id = ${id}`.pipe(Effect.flatMap(decodeRunRows))
        )
        if (row === undefined) return yield* ObjectTable.notFound("run", id)
        return { run: found, caller: yield* ObjectTable.internal(decodeCaller(row.caller)) }
      }),
    listRuns: (workspaceId, threadId, query) =>
      Effect.andThen(thread(workspaceId, threadId), runs.page({ workspaceId, parentId: threadId }, query)),
    updateRun: (workspaceId, changed, leaseUntil, options) =>
      Effect.gen(function*() {
        const scope = { workspaceId, parentId: changed.thread_id }
        // the metadata is the caller's (modifyRun): a run's own progress never writes over it
        const stored = yield* runs.find(scope, changed.id).pipe(
          Effect.catchTag("NotFound", () => Effect.succeed(undefined))
        )
        const kept = stored === undefined ? changed : { ...changed, metadata: stored.metadata }
        return yield* runs.update(
          scope,
          kept,
          { status: kept.status, ...(leaseUntil === undefined ? {} : { lease_until: leaseUntil }) },
          options?.onlyIf === undefined ? sql`1 = 1` : sql`status = ${options.onlyIf}`
        )
      }),
    requeueRun: (workspaceId, queued, leaseUntil) =>
      runs.updateIf(
        { workspaceId, parentId: queued.thread_id },
        queued,
        { status: queued.status, lease_until: leaseUntil },
        sql`status = 'requires_action'`
      ),
    modifyRun: (workspaceId, threadId, runId, body) =>
      Effect.gen(function*() {
        const found = yield* run(workspaceId, threadId, runId)
        if (body.metadata === undefined) return found
        return yield* runs.update({ workspaceId, parentId: threadId }, { ...found, metadata: body.metadata ?? {} })
      }),
    renewLease: (runId, leaseUntil) =>
      ObjectTable.internal(
        sql`UPDATE thread_runs SET lease_until = ${leaseUntil} WHERE id = ${runId} AND status = 'in_progress'`
      ),
    takeAbandoned: (now, leaseUntil, options) =>
      ObjectTable.internal(Effect.gen(function*() {
        // with ignoreLeases, a lease in the future counts as lapsed too
        const lapsedBy = options?.ignoreLeases === true ? Number.MAX_SAFE_INTEGER : now
        // the conditional update is the claim: of two processes, only one sees its row change
        const candidates = yield* sql`SELECT id, workspace_id FROM thread_runs
              WHERE status IN ('queued', 'in_progress') AND (lease_until IS NULL OR lease_until < ${lapsedBy})`.pipe(
          Effect.flatMap(decodeIdRows)
        )
        const taken: Array<{ readonly workspaceId: string } & StoredRun> = []
        for (const candidate of candidates) {
          const claimed = yield* sql`UPDATE thread_runs SET lease_until = ${leaseUntil}
                WHERE id = ${candidate.id} AND status IN ('queued', 'in_progress')
                AND (lease_until IS NULL OR lease_until < ${lapsedBy}) RETURNING body, caller`.pipe(
            Effect.flatMap(Schema.decodeUnknownEffect(
              Schema.Array(Schema.Struct({ body: Schema.fromJsonString(ThreadRun.ThreadRun), caller: CallerJson }))
            ))
          )
          for (const row of claimed) {
            taken.push({ workspaceId: candidate.workspace_id, run: row.body, caller: row.caller })
          }
        }
        return taken
      })),

    waitingRuns: (now) =>
      ObjectTable.internal(
        sql`SELECT workspace_id, body, caller FROM thread_runs WHERE status = 'requires_action'`.pipe(
          Effect.flatMap(decodeWaitingRows),
          Effect.map((rows) =>
            rows.filter((row) => row.body.expires_at !== null && row.body.expires_at <= now).map((row) => ({
              workspaceId: row.workspace_id,
              run: row.body,
              caller: row.caller
            }))
          )
        )
      ),
    insertStep: (workspaceId, step) => steps.insert({ workspaceId, parentId: step.run_id }, step, step.created_at),
    updateStep: (workspaceId, step) => steps.update({ workspaceId, parentId: step.run_id }, step),
    getStep: (workspaceId, threadId, runId, id) =>
      Effect.andThen(run(workspaceId, threadId, runId), steps.find({ workspaceId, parentId: runId }, id)),
    listSteps: (workspaceId, threadId, runId, query) =>
      Effect.andThen(run(workspaceId, threadId, runId), steps.page({ workspaceId, parentId: runId }, query))
  }
}
