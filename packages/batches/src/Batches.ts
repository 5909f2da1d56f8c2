/**
 * Batches per workspace (extensions.md, "Files and batches"): created `validating`, their lines
 * checked and queued, run through the gateway pipeline as their creator with the provider
 * selection the batch was created with, then `finalizing` into an output and an error file and
 * `completed`; or `failed` (no valid line), `cancelling` → `cancelled`, `expired` (24h window).
 * Each line's answer is written once (the first kept), so request counts are always current.
 *
 * @example
 * import { Batches } from "@switchyard/batches"
 *
 * const batch = Batches.Batches.use((batches) => batches.get("my-workspace", "batch_…"))
 */
import { SecretBox, ServerSecret } from "@switchyard/auth"
import { Gateway, GatewayError, Principal, ProviderSelection } from "@switchyard/core"
import { FileStore } from "@switchyard/files"
import type { Batch, ListQuery } from "@switchyard/protocol"
import { KeysetPage } from "@switchyard/storage"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { BatchQueue, type Job } from "./BatchQueue.ts"
import * as BatchStore from "./internal/BatchStore.ts"
import { Caller, encodeBatch, internal, newId, unix } from "./internal/BatchStore.ts"
import * as BatchValidation from "./internal/BatchValidation.ts"
import * as LineRunner from "./internal/LineRunner.ts"
import * as OutputFiles from "./internal/OutputFiles.ts"
import * as TargetConcurrency from "./TargetConcurrency.ts"

export { Caller, newId } from "./internal/BatchStore.ts"
export { retryAfterSeconds } from "./internal/LineRunner.ts"

export type Page = KeysetPage.Page<Batch.Batch>

type Failure = GatewayError.NotFound | GatewayError.InternalError

export class Batches extends Context.Service<Batches, {
  /** Checks the input file exists and queues the batch's validation; answers it `validating`. */
  readonly create: (input: {
    readonly principal: Principal.Principal
    readonly headers: Readonly<Record<string, string>>
    readonly body: Batch.CreateBatch
  }) => Effect.Effect<Batch.Batch, GatewayError.InvalidRequest | GatewayError.InternalError>
  readonly get: (workspaceId: string, id: string) => Effect.Effect<Batch.Batch, Failure>
  readonly list: (
    workspaceId: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<Page, GatewayError.InvalidRequest | GatewayError.InternalError>
  /** `cancelling` now, `cancelled` once finalized; an ended batch is a 409. */
  readonly cancel: (workspaceId: string, id: string) => Effect.Effect<Batch.Batch, Failure | GatewayError.Conflict>
  /** Does one queued job (what a worker calls for each job it takes). */
  readonly work: (job: Job, attempt: number) => Effect.Effect<void, GatewayError.GatewayError>
}>()("@switchyard/batches/Batches") {
  /**
   * The batches with `options`: `maxLinesInFlight`, how many lines of one batch run at once over all
   * workers; `maxLinesPerTarget`, how many lines of all batches this process sends to one provider
   * target at once (`TargetConcurrency`).
   */
  static readonly layerWith = (options: {
    readonly maxLinesInFlight?: number | undefined
    readonly maxLinesPerTarget?: number | undefined
  }): Layer.Layer<
    Batches,
    never,
    SqlClient.SqlClient | FileStore.FileStore | BatchQueue | Gateway.Gateway | ServerSecret.ServerSecret
  > =>
    Layer.effect(
      Batches,
      Effect.suspend(() =>
        make(
          options.maxLinesInFlight ?? DEFAULT_LINES_IN_FLIGHT,
          options.maxLinesPerTarget ?? TargetConcurrency.DEFAULT_MAX_PER_TARGET
        )
      )
    )

  static readonly layer = Batches.layerWith({})
}

/**
 * How many lines of one batch are queued or running at once unless told otherwise: a batch keeps
 * this many in the queue, each line done queues the next, so batches share the workers (a large one
 * does not hold them all) and one batch never sends more than this to its providers at once.
 */
export const DEFAULT_LINES_IN_FLIGHT = 64

const DAY_SECONDS = 24 * 60 * 60
const encodeCaller = Schema.encodeSync(Schema.fromJsonString(Caller))

const make = (linesInFlight: number, linesPerTarget: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const files = yield* FileStore.FileStore
    const queue = yield* BatchQueue
    const gateway = yield* Gateway.Gateway
    const secret = yield* ServerSecret.ServerSecret
    const targets = yield* TargetConcurrency.make(linesPerTarget)

    const store = BatchStore.make(sql)
    const { select, withCounts, find, transition } = store

    const create = (input: {
      readonly principal: Principal.Principal
      readonly headers: Readonly<Record<string, string>>
      readonly body: Batch.CreateBatch
    }) =>
      Effect.gen(function*() {
        const { principal, headers, body } = input
        const kept = yield* ProviderSelection.keep(headers, { owner: "batch", calls: "lines" })
        const file = yield* files.get(principal.workspaceId, body.input_file_id).pipe(
          Effect.catchTag("NotFound", () =>
            Effect.fail(
              new GatewayError.InvalidRequest({
                message: `input_file_id: no file ${body.input_file_id}`,
                param: "input_file_id"
              })
            ))
        )
        if (file.purpose !== "batch") {
          return yield* new GatewayError.InvalidRequest({
            message: `input_file_id: the file's purpose is ${file.purpose}, not batch`,
            param: "input_file_id"
          })
        }
        const createdAt = yield* unix
        const batch: Batch.Batch = {
          id: newId("batch"),
          object: "batch",
          endpoint: body.endpoint,
          input_file_id: body.input_file_id,
          completion_window: body.completion_window,
          status: "validating",
          created_at: createdAt,
          errors: null,
          output_file_id: null,
          error_file_id: null,
          in_progress_at: null,
          expires_at: body.completion_window === "24h" ? createdAt + DAY_SECONDS : null,
          finalizing_at: null,
          completed_at: null,
          failed_at: null,
          expired_at: null,
          cancelling_at: null,
          cancelled_at: null,
          request_counts: { total: 0, completed: 0, failed: 0 },
          metadata: body.metadata ?? null
        }
        const caller: Caller = {
          keyId: principal.keyId,
          scopes: [...principal.scopes],
          ...(principal.expiresAt === undefined ? {} : { expiresAt: principal.expiresAt })
        }
        yield* internal(Effect.gen(function*() {
          const stored = yield* encodeBatch(batch)
          const [last] = yield* sql<{ readonly position: unknown }>`SELECT MAX(position) AS position
          FROM batches WHERE workspace_id = ${principal.workspaceId}`
          yield* sql`INSERT INTO batches ${
            sql.insert({
              id: batch.id,
              workspace_id: principal.workspaceId,
              position: Number(last?.position ?? 0) + 1,
              created_at: createdAt,
              status: batch.status,
              caller: encodeCaller(caller),
              selection: SecretBox.seal(secret.credentialKey, kept),
              body: stored
            })
          }`
        }))
        yield* queue.offer({ kind: "validate", batchId: batch.id })
        return batch
      })

    const list = (workspaceId: string, query: ListQuery.ListQuery) =>
      Effect.gen(function*() {
        const scope = sql`workspace_id = ${workspaceId}`
        const { hasMore, rows } = yield* KeysetPage.read({
          sql,
          query,
          at: (id) => Effect.map(select(sql`${scope} AND id = ${id}`), ([row]) => row),
          rows: (cursor, order, limit) => select(sql`${scope} AND ${cursor}`, sql`${order} LIMIT ${limit}`)
        }).pipe(
          Effect.catchTag("UnknownCursor", (cursor) =>
            Effect.fail(
              new GatewayError.InvalidRequest({ message: KeysetPage.cursorRule(cursor, "batch"), param: cursor.field })
            ))
        )
        return KeysetPage.list(yield* Effect.forEach(rows, (row) => withCounts(row.body)), hasMore)
      })

    const cancel = (workspaceId: string, id: string) =>
      Effect.gen(function*() {
        const batch = yield* find(workspaceId, id)
        if (batch.status === "cancelling" || batch.status === "cancelled") return yield* withCounts(batch)
        if (batch.status !== "validating" && batch.status !== "in_progress") {
          return yield* new GatewayError.Conflict({
            message: `batch ${id} has already ended (${batch.status})`,
            param: null
          })
        }
        const cancelling: Batch.Batch = { ...batch, status: "cancelling", cancelling_at: yield* unix }
        // another process moved it first (it ended, or validation started it): answer what it is now
        if (!(yield* transition(cancelling, ["validating", "in_progress"]))) {
          return yield* Effect.flatMap(find(workspaceId, id), withCounts)
        }
        yield* queue.offer({ kind: "finalize", batchId: id })
        return yield* withCounts(cancelling)
      })
    const validate = BatchValidation.make({ sql, files, queue, store, linesInFlight })
    const runLine = LineRunner.make({ sql, queue, gateway, secret, targets, store, linesInFlight })
    const finalize = OutputFiles.make({ sql, files, store })

    return Batches.of({
      create,
      get: (workspaceId, id) => Effect.flatMap(find(workspaceId, id), withCounts),
      list,
      cancel,
      work: (job, attempt) =>
        job.kind === "validate"
          ? validate(job.batchId)
          : job.kind === "line"
          ? runLine(job.batchId, job.line, attempt)
          : finalize(job.batchId)
    })
  })
