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
import type { GatewayError } from "@switchyard/core"
import type { Assistant, ListQuery, RunStep, Thread, ThreadMessage, ThreadRun } from "@switchyard/protocol"
import { Context, Effect, Layer, type Option } from "effect"
import { SqlClient } from "effect/sql"
import type * as ObjectTable from "./internal/ObjectTable.ts"
import * as StoredAssistants from "./internal/StoredAssistants.ts"
import * as StoredMessages from "./internal/StoredMessages.ts"
import * as StoredRuns from "./internal/StoredRuns.ts"
import * as StoredThreads from "./internal/StoredThreads.ts"
import * as ThreadTables from "./internal/ThreadTables.ts"
import type { Caller } from "./internal/ThreadTables.ts"

export { contentOf } from "./internal/StoredMessages.ts"
export { Caller, newId } from "./internal/ThreadTables.ts"

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
      const tables = ThreadTables.make(sql)
      return ThreadStore.of({
        ...StoredAssistants.make(tables),
        ...StoredThreads.make(tables),
        ...StoredMessages.make(tables),
        ...StoredRuns.make(tables)
      })
    })
  )
}
