/**
 * Assistants, threads, messages, runs and run steps, per workspace, in the gateway's database
 * (SQLite or Postgres). Another workspace's id is a 404. A thread keeps the provider selection it
 * was created with (sealed, since it may hold a provider's key), which its runs use.
 *
 * @example
 * import { ThreadStore } from "@switchyard/assistants"
 * const assistant = ThreadStore.ThreadStore.use((store) =>
 *   store.createAssistant("my-workspace", { model: "gpt-4o-mini", instructions: "Be brief." })
 * )
 */
import { GatewayError } from "@switchyard/core"
import {
  Assistant,
  type ListQuery,
  RunStep,
  StoredObjectRequests,
  Thread,
  ThreadMessage,
  ThreadRun
} from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as ObjectTable from "./internal/ObjectTable.ts"

export type Page<A> = ObjectTable.Page<A>
type Failure = ObjectTable.StoreFailure
type ListFailure = GatewayError.InvalidRequest | GatewayError.InternalError | GatewayError.NotFound

/** What a delete answers, as the common assistants format has it. */
export interface Deleted {
  readonly id: string
  readonly object: "assistant.deleted" | "thread.deleted" | "thread.message.deleted"
  readonly deleted: true
}

/** A run as stored: the object, and who started it (their calls run as that principal). */
export interface StoredRun {
  readonly run: ThreadRun.ThreadRun
  readonly caller: Caller
}

/** The principal a run was created by, so a run resumed in the background is made as them. */
export const Caller = Schema.Struct({
  keyId: Schema.String,
  scopes: Schema.Array(StoredObjectRequests.Scope),
  expiresAt: Schema.optionalKey(Schema.Number)
})
export type Caller = typeof Caller.Type
const CallerJson = Schema.fromJsonString(Caller)
const encodeCaller = Schema.encodeSync(CallerJson)
const decodeCaller = Schema.decodeUnknownEffect(CallerJson)

/** An object id in the common format's style: `asst_…`, `thread_…`, `msg_…`, `run_…`, `step_…`. */
export const newId = (prefix: "asst" | "thread" | "msg" | "run" | "step" | "call"): string =>
  `${prefix}_${randomBytes(12).toString("base64url")}`

const unix = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

/** A message's content as stored: text becomes a text part with no annotations. */
export const contentOf = (
  content: ThreadMessage.CreateThreadMessage["content"]
): ReadonlyArray<ThreadMessage.MessageContent> =>
  typeof content === "string"
    ? [{ type: "text", text: { value: content, annotations: [] } }]
    : content.map((part) => part.type === "text" ? { type: "text", text: { value: part.text, annotations: [] } } : part)

const Selection = Schema.Struct({ selection: Schema.String })
const decodeSelection = Schema.decodeUnknownEffect(Schema.Array(Selection))
const RunRow = Schema.Struct({ caller: Schema.String })
const decodeRunRows = Schema.decodeUnknownEffect(Schema.Array(RunRow))
const decodeWaitingRows = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  workspace_id: Schema.String,
  body: Schema.fromJsonString(ThreadRun.ThreadRun),
  caller: CallerJson
})))
const decodeBodies = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ body: Schema.fromJsonString(ThreadRun.ThreadRun) }))
)
const IdRow = Schema.Struct({ id: Schema.String, workspace_id: Schema.String })
const decodeIdRows = Schema.decodeUnknownEffect(Schema.Array(IdRow))

const decodeAssistantSelection = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ selection: Schema.NullOr(Schema.String) }))
)

/** What an assistant shows of its own selection: names and a stored config's id, never a key. */
const shownSelection = (body: Assistant.ModifyAssistant) => ({
  provider: body.provider ?? null,
  integration: body.integration ?? null,
  config: typeof body.config === "string" ? body.config : null
})

export class ThreadStore extends Context.Service<ThreadStore, {
  /** `selection` is the assistant's own provider selection, sealed, or null for the thread's. */
  readonly createAssistant: (
    workspaceId: string,
    body: Assistant.CreateAssistant,
    selection?: string | null
  ) => Effect.Effect<Assistant.Assistant, GatewayError.InternalError>
  readonly getAssistant: (workspaceId: string, id: string) => Effect.Effect<Assistant.Assistant, Failure>
  readonly listAssistants: (
    workspaceId: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<Page<Assistant.Assistant>, ListFailure>
  /** `selection`, when given, replaces the assistant's own (null: use the thread's again). */
  readonly modifyAssistant: (
    workspaceId: string,
    id: string,
    body: Assistant.ModifyAssistant,
    selection?: string | null
  ) => Effect.Effect<Assistant.Assistant, Failure>
  /** The assistant's own sealed provider selection, or null when its runs use the thread's. */
  readonly assistantSelection: (workspaceId: string, id: string) => Effect.Effect<string | null, Failure>
  readonly deleteAssistant: (workspaceId: string, id: string) => Effect.Effect<Deleted, Failure>

  /** Creates the thread with its first messages; `selection` is the sealed provider selection. */
  readonly createThread: (
    workspaceId: string,
    body: Thread.CreateThread,
    selection: string
  ) => Effect.Effect<Thread.Thread, GatewayError.InternalError>
  readonly getThread: (workspaceId: string, id: string) => Effect.Effect<Thread.Thread, Failure>
  /** The sealed provider selection the thread was created with. */
  readonly threadSelection: (workspaceId: string, id: string) => Effect.Effect<string, Failure>
  readonly modifyThread: (
    workspaceId: string,
    id: string,
    body: Thread.ModifyThread
  ) => Effect.Effect<Thread.Thread, Failure>
  /** Deletes the thread with its messages, runs and steps. */
  readonly deleteThread: (workspaceId: string, id: string) => Effect.Effect<Deleted, Failure>

  /**
   * Adds a caller's message. While a run of the thread has not ended, its conversation stays as
   * the run read it: a message then is a 400 naming `thread_id` (checked under the thread's lock).
   */
  readonly createMessage: (
    workspaceId: string,
    threadId: string,
    body: ThreadMessage.CreateThreadMessage
  ) => Effect.Effect<ThreadMessage.ThreadMessage, Failure | GatewayError.InvalidRequest>
  /** Writes a message a run made (the thread is known to exist). */
  readonly insertMessage: (
    workspaceId: string,
    message: ThreadMessage.ThreadMessage
  ) => Effect.Effect<ThreadMessage.ThreadMessage, GatewayError.InternalError>
  readonly getMessage: (
    workspaceId: string,
    threadId: string,
    id: string
  ) => Effect.Effect<ThreadMessage.ThreadMessage, Failure>
  /** A page of the thread's messages; with `runId`, only the messages that run made. */
  readonly listMessages: (
    workspaceId: string,
    threadId: string,
    query: ListQuery.ListQuery,
    runId?: string
  ) => Effect.Effect<Page<ThreadMessage.ThreadMessage>, ListFailure>
  /** Every message of the thread, oldest first: what a run sends to the model. */
  readonly conversation: (
    workspaceId: string,
    threadId: string
  ) => Effect.Effect<ReadonlyArray<ThreadMessage.ThreadMessage>, ListFailure>
  readonly modifyMessage: (
    workspaceId: string,
    threadId: string,
    id: string,
    body: ThreadMessage.ModifyThreadMessage
  ) => Effect.Effect<ThreadMessage.ThreadMessage, Failure>
  readonly updateMessage: (
    workspaceId: string,
    message: ThreadMessage.ThreadMessage
  ) => Effect.Effect<ThreadMessage.ThreadMessage, GatewayError.InternalError>
  readonly deleteMessage: (workspaceId: string, threadId: string, id: string) => Effect.Effect<Deleted, Failure>

  /** Writes a new run, held by the creating process until `leaseUntil` (unix seconds). */
  readonly insertRun: (
    workspaceId: string,
    run: ThreadRun.ThreadRun,
    caller: Caller,
    leaseUntil: number
  ) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.InternalError>
  /**
   * Writes a new run unless its thread has one that has not ended; answers that one then. Two
   * processes creating runs of one thread at once are taken one after the other (the thread's
   * row is locked), so a thread never has two active runs.
   */
  readonly insertRunIfIdle: (
    workspaceId: string,
    run: ThreadRun.ThreadRun,
    caller: Caller,
    leaseUntil: number
  ) => Effect.Effect<Option.Option<ThreadRun.ThreadRun>, GatewayError.InternalError>
  readonly getRun: (workspaceId: string, threadId: string, id: string) => Effect.Effect<StoredRun, Failure>
  readonly listRuns: (
    workspaceId: string,
    threadId: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<Page<ThreadRun.ThreadRun>, ListFailure>
  /**
   * Writes the run; with `leaseUntil`, the process running it holds it until then (unix seconds),
   * and another process may take it over only after.
   */
  readonly updateRun: (
    workspaceId: string,
    run: ThreadRun.ThreadRun,
    leaseUntil?: number | null,
    options?: { readonly onlyIf?: ThreadRun.RunStatus }
  ) => Effect.Effect<ThreadRun.ThreadRun, GatewayError.InternalError>
  /**
   * Queues again a run that waits on its caller, held until `leaseUntil`; false when it no longer
   * waits (another request submitted its outputs, or it was cancelled or expired meanwhile).
   */
  readonly requeueRun: (
    workspaceId: string,
    run: ThreadRun.ThreadRun,
    leaseUntil: number
  ) => Effect.Effect<boolean, GatewayError.InternalError>
  /** Sets a run's metadata, whatever its status. */
  readonly modifyRun: (
    workspaceId: string,
    threadId: string,
    runId: string,
    body: ThreadRun.ModifyRun
  ) => Effect.Effect<ThreadRun.ThreadRun, Failure>
  /** Extends the lease of a run still `in_progress`, leaving the run as it is. */
  readonly renewLease: (runId: string, leaseUntil: number) => Effect.Effect<void, GatewayError.InternalError>
  /**
   * Takes the runs no process holds any more (`queued` or `in_progress` whose lease has passed,
   * or that never had one), leasing each to the caller until `leaseUntil`: each is taken by one
   * process only.
   */
  readonly takeAbandoned: (
    now: number,
    leaseUntil: number,
    options?: { readonly ignoreLeases?: boolean }
  ) => Effect.Effect<ReadonlyArray<{ readonly workspaceId: string } & StoredRun>, GatewayError.InternalError>

  /** The runs waiting on their caller (`requires_action`) past their `expires_at`. */
  readonly waitingRuns: (
    now: number
  ) => Effect.Effect<ReadonlyArray<{ readonly workspaceId: string } & StoredRun>, GatewayError.InternalError>

  readonly insertStep: (
    workspaceId: string,
    step: RunStep.RunStep
  ) => Effect.Effect<RunStep.RunStep, GatewayError.InternalError>
  readonly updateStep: (
    workspaceId: string,
    step: RunStep.RunStep
  ) => Effect.Effect<RunStep.RunStep, GatewayError.InternalError>
  readonly getStep: (
    workspaceId: string,
    threadId: string,
    runId: string,
    id: string
  ) => Effect.Effect<RunStep.RunStep, Failure>
  readonly listSteps: (
    workspaceId: string,
    threadId: string,
    runId: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<Page<RunStep.RunStep>, ListFailure>
}>()("@switchyard/assistants/ThreadStore") {
  static readonly layer: Layer.Layer<ThreadStore, never, SqlClient.SqlClient> = Layer.effect(
    ThreadStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
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

      const newMessage = (
        threadId: string,
        body: ThreadMessage.CreateThreadMessage,
        at: number
      ): ThreadMessage.ThreadMessage => ({
        id: newId("msg"),
        object: "thread.message",
        created_at: at,
        thread_id: threadId,
        status: "completed",
        incomplete_details: null,
        completed_at: at,
        incomplete_at: null,
        role: body.role,
        content: contentOf(body.content),
        assistant_id: null,
        run_id: null,
        attachments: body.attachments ?? [],
        metadata: body.metadata ?? {}
      })

      const thread = (workspaceId: string, threadId: string) => threads.find({ workspaceId }, threadId)
      const run = (workspaceId: string, threadId: string, id: string) =>
        Effect.andThen(thread(workspaceId, threadId), runs.find({ workspaceId, parentId: threadId }, id))

      /** The thread's run that has not ended, read under the thread's row lock (a write to it). */
      const lockedActiveRun = (threadId: string) =>
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

      const createMessage = (workspaceId: string, threadId: string, body: ThreadMessage.CreateThreadMessage) =>
        ObjectTable.transaction(
          sql,
          Effect.gen(function*() {
            yield* thread(workspaceId, threadId)
            const active = yield* lockedActiveRun(threadId)
            if (Option.isSome(active)) {
              return yield* new GatewayError.InvalidRequest({
                message: `thread_id: thread ${threadId} has an active run ${active.value.id} ` +
                  `(${active.value.status}); add messages once it has ended, or cancel it`,
                param: "thread_id"
              })
            }
            const at = yield* unix
            return yield* messages.insert({ workspaceId, parentId: threadId }, newMessage(threadId, body, at), at)
          })
        )

      return ThreadStore.of({
        createAssistant: (workspaceId, body, selection = null) =>
          Effect.gen(function*() {
            const at = yield* unix
            yield* ensureWorkspace(workspaceId, at)
            const assistant: Assistant.Assistant = {
              id: newId("asst"),
              object: "assistant",
              created_at: at,
              name: body.name ?? null,
              description: body.description ?? null,
              model: body.model,
              instructions: body.instructions ?? null,
              tools: body.tools ?? [],
              metadata: body.metadata ?? {},
              temperature: body.temperature ?? null,
              top_p: body.top_p ?? null,
              response_format: body.response_format ?? "auto",
              ...shownSelection(body)
            }
            return yield* assistants.insert({ workspaceId }, assistant, at, { selection })
          }),
        getAssistant: (workspaceId, id) => assistants.find({ workspaceId }, id),
        listAssistants: (workspaceId, query) => assistants.page({ workspaceId }, query),
        modifyAssistant: (workspaceId, id, body, selection) =>
          Effect.gen(function*() {
            const found = yield* assistants.find({ workspaceId }, id)
            const changed: Assistant.Assistant = {
              ...found,
              ...(body.model === undefined ? {} : { model: body.model }),
              ...(body.name === undefined ? {} : { name: body.name }),
              ...(body.description === undefined ? {} : { description: body.description }),
              ...(body.instructions === undefined ? {} : { instructions: body.instructions }),
              ...(body.tools === undefined ? {} : { tools: body.tools }),
              ...(body.metadata === undefined ? {} : { metadata: body.metadata ?? {} }),
              ...(body.temperature === undefined ? {} : { temperature: body.temperature }),
              ...(body.top_p === undefined ? {} : { top_p: body.top_p }),
              ...(body.response_format === undefined ? {} : { response_format: body.response_format ?? "auto" }),
              ...(selection === undefined ? {} : shownSelection(body))
            }
            return yield* assistants.update({ workspaceId }, changed, selection === undefined ? {} : { selection })
          }),
        assistantSelection: (workspaceId, id) =>
          Effect.gen(function*() {
            const rows = yield* ObjectTable.internal(
              sql`SELECT selection FROM assistants WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
                Effect.flatMap(decodeAssistantSelection)
              )
            )
            const [row] = rows
            if (row === undefined) return yield* ObjectTable.notFound("assistant", id)
            return row.selection
          }),
        deleteAssistant: (workspaceId, id) =>
          Effect.gen(function*() {
            yield* assistants.find({ workspaceId }, id)
            yield* assistants.remove({ workspaceId }, id)
            return { id, object: "assistant.deleted" as const, deleted: true as const }
          }),

        createThread: (workspaceId, body, selection) =>
          ObjectTable.transaction(
            sql,
            Effect.gen(function*() {
              const at = yield* unix
              yield* ensureWorkspace(workspaceId, at)
              const created: Thread.Thread = {
                id: newId("thread"),
                object: "thread",
                created_at: at,
                metadata: body.metadata ?? {},
                tool_resources: {}
              }
              yield* threads.insert({ workspaceId }, created, at, { selection })
              for (const message of body.messages ?? []) {
                yield* messages.insert({ workspaceId, parentId: created.id }, newMessage(created.id, message, at), at)
              }
              return created
            })
          ),
        getThread: thread,
        threadSelection: (workspaceId, id) =>
          Effect.gen(function*() {
            const rows = yield* ObjectTable.internal(
              sql`SELECT selection FROM threads WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
                Effect.flatMap(decodeSelection)
              )
            )
            const [row] = rows
            if (row === undefined) return yield* ObjectTable.notFound("thread", id)
            return row.selection
          }),
        modifyThread: (workspaceId, id, body) =>
          Effect.gen(function*() {
            const found = yield* thread(workspaceId, id)
            if (body.metadata === undefined) return found
            return yield* threads.update({ workspaceId }, { ...found, metadata: body.metadata ?? {} })
          }),
        deleteThread: (workspaceId, id) =>
          Effect.gen(function*() {
            yield* thread(workspaceId, id)
            // the database removes its messages, runs and steps with it (ON DELETE CASCADE)
            yield* threads.remove({ workspaceId }, id)
            return { id, object: "thread.deleted" as const, deleted: true as const }
          }),

        createMessage,
        insertMessage: (workspaceId, message) =>
          Effect.flatMap(
            unix,
            (at) =>
              messages.insert({ workspaceId, parentId: message.thread_id }, message, at, { run_id: message.run_id })
          ),
        getMessage: (workspaceId, threadId, id) =>
          Effect.andThen(thread(workspaceId, threadId), messages.find({ workspaceId, parentId: threadId }, id)),
        listMessages: (workspaceId, threadId, query, runId) =>
          Effect.andThen(
            thread(workspaceId, threadId),
            messages.page(
              { workspaceId, parentId: threadId },
              query,
              runId === undefined ? sql`1 = 1` : sql`run_id = ${runId}`
            )
          ),
        conversation: (workspaceId, threadId) =>
          Effect.gen(function*() {
            const all: Array<ThreadMessage.ThreadMessage> = []
            let after: string | undefined
            for (;;) {
              const page = yield* messages.page(
                { workspaceId, parentId: threadId },
                { limit: 100, order: "asc", ...(after === undefined ? {} : { after }) }
              )
              all.push(...page.data)
              if (!page.has_more || page.last_id === null) return all
              after = page.last_id
            }
          }),
        modifyMessage: (workspaceId, threadId, id, body) =>
          Effect.gen(function*() {
            yield* thread(workspaceId, threadId)
            const found = yield* messages.find({ workspaceId, parentId: threadId }, id)
            if (body.metadata === undefined) return found
            return yield* messages.update({ workspaceId, parentId: threadId }, {
              ...found,
              metadata: body.metadata ?? {}
            })
          }),
        updateMessage: (workspaceId, message) => messages.update({ workspaceId, parentId: message.thread_id }, message),
        deleteMessage: (workspaceId, threadId, id) =>
          Effect.gen(function*() {
            yield* thread(workspaceId, threadId)
            yield* messages.find({ workspaceId, parentId: threadId }, id)
            yield* messages.remove({ workspaceId, parentId: threadId }, id)
            return { id, object: "thread.message.deleted" as const, deleted: true as const }
          }),

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
      })
    })
  )
}
