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
import { Gateway, GatewayError, Principal, ProviderSelection, RequestContext } from "@switchyard/core"
import { FileStore } from "@switchyard/files"
import { Batch, type ListQuery, StoredObjectRequests } from "@switchyard/protocol"
import { KeysetPage } from "@switchyard/storage"
import { Array as Arr, Clock, Context, Effect, Layer, Option, Schema, Stream } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as BatchInput from "./BatchInput.ts"
import { BatchQueue, type Job, MAX_ATTEMPTS } from "./BatchQueue.ts"
import * as TargetConcurrency from "./TargetConcurrency.ts"

/** The principal a batch was created by: its lines run as them. */
export const Caller = Schema.Struct({
  keyId: Schema.String,
  scopes: Schema.Array(StoredObjectRequests.Scope),
  expiresAt: Schema.optionalKey(Schema.Number)
})
export type Caller = typeof Caller.Type

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

export const newId = (prefix: "batch" | "batch_req"): string => `${prefix}_${randomBytes(12).toString("base64url")}`

const unix = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))
const DAY_SECONDS = 24 * 60 * 60

const Position = Schema.Union([Schema.Finite, Schema.NumberFromString])
const StoredBatch = Schema.fromJsonString(Batch.Batch)
const Row = Schema.Struct({ id: Schema.String, workspace_id: Schema.String, position: Position, body: StoredBatch })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const RunRow = Schema.Struct({
  workspace_id: Schema.String,
  body: StoredBatch,
  caller: Schema.fromJsonString(Caller),
  selection: Schema.String
})
const decodeRunRows = Schema.decodeUnknownEffect(Schema.Array(RunRow))
const LineRow = Schema.Struct({
  custom_id: Schema.NullOr(Schema.String),
  request: Schema.NullOr(Schema.String),
  state: Schema.String
})
const decodeLineRows = Schema.decodeUnknownEffect(Schema.Array(LineRow))
const CountRow = Schema.Struct({ state: Schema.String, n: Position })
const decodeCountRows = Schema.decodeUnknownEffect(Schema.Array(CountRow))
const decodeLineNumbers = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ line: Schema.Number })))
const decodePendingRows = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ line: Schema.Number, custom_id: Schema.NullOr(Schema.String) }))
)
const ResultRow = Schema.Struct({ line: Schema.Number, result: Schema.String })
const decodeResultRows = Schema.decodeUnknownEffect(Schema.Array(ResultRow))
const encodeBatch = Schema.encodeEffect(StoredBatch)
const encodeCaller = Schema.encodeSync(Schema.fromJsonString(Caller))
const decodeSelection = Schema.decodeUnknownEffect(Schema.Record(Schema.String, Schema.String))
const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

const internal = <A, R>(
  effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
): Effect.Effect<A, GatewayError.InternalError, R> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`batches: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `batches: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `no batch ${id}` })

/** One line of an output or error file (the common batch format). */
const resultLine = (
  customId: string | null,
  requestId: string | null,
  response: { readonly status: number; readonly body: unknown } | null,
  error: { readonly code: string; readonly message: string } | null
) =>
  JSON.stringify({
    id: newId("batch_req"),
    custom_id: customId,
    response: response === null ? null : { status_code: response.status, request_id: requestId, body: response.body },
    error
  })

/**
 * Seconds a provider's `retry-after-ms` or `retry-after` asks for, at most 60; none:
 * `TargetConcurrency.DEFAULT_PAUSE_SECONDS`.
 */
export const retryAfterSeconds = (headers: Readonly<Record<string, string>>): number => {
  const ms = Number(headers["retry-after-ms"])
  const seconds = Number.isFinite(ms) && ms > 0 ? ms / 1000 : Number(headers["retry-after"])
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) : TargetConcurrency.DEFAULT_PAUSE_SECONDS
}

/** How many lines are written per INSERT while a file is validated. */
const INSERT_ROWS = 200

const make = (linesInFlight: number, linesPerTarget: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const files = yield* FileStore.FileStore
    const queue = yield* BatchQueue
    const gateway = yield* Gateway.Gateway
    const secret = yield* ServerSecret.ServerSecret
    const targets = yield* TargetConcurrency.make(linesPerTarget)

    const select = (condition: Statement.Fragment, tail: Statement.Fragment = sql``) =>
      internal(
        sql`SELECT id, workspace_id, position, body FROM batches WHERE ${condition} ${tail}`.pipe(
          Effect.flatMap(decodeRows)
        )
      )

    const counts = (id: string) =>
      internal(
        sql`SELECT state, COUNT(*) AS n FROM batch_lines WHERE batch_id = ${id} GROUP BY state`.pipe(
          Effect.flatMap(decodeCountRows)
        )
      ).pipe(Effect.map((rows) => {
        const of = (state: string) => Number(rows.find((row) => row.state === state)?.n ?? 0)
        return {
          total: of("pending") + of("completed") + of("failed"),
          completed: of("completed"),
          failed: of("failed")
        }
      }))

    /** The stored object with its current request counts. */
    const withCounts = (batch: Batch.Batch) =>
      Effect.map(counts(batch.id), (request_counts): Batch.Batch => ({ ...batch, request_counts }))

    const find = (workspaceId: string, id: string) =>
      Effect.flatMap(
        select(sql`workspace_id = ${workspaceId} AND id = ${id}`),
        ([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(row.body)
      )

    /** Writes the batch's new state if it is still in one of `from` (another process may have moved it). */
    const transition = (batch: Batch.Batch, from: ReadonlyArray<Batch.BatchStatus>) =>
      internal(Effect.gen(function*() {
        const body = yield* encodeBatch(batch)
        const rows = yield* sql`UPDATE batches SET ${sql.update({ status: batch.status, body })}
        WHERE id = ${batch.id} AND status IN ${sql.in(from)} RETURNING id`
        return rows.length > 0
      }))

    const runRow = (batchId: string) =>
      internal(
        sql`SELECT workspace_id, body, caller, selection FROM batches WHERE id = ${batchId}`.pipe(
          Effect.flatMap(decodeRunRows)
        )
      ).pipe(Effect.map((rows) => Option.fromUndefinedOr(rows[0])))

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

    /** Reads the input file line by line, records each line, and queues the valid ones. */
    const validate = (batchId: string) =>
      Effect.gen(function*() {
        const found = yield* runRow(batchId)
        // in_progress: a validation that stopped after starting the batch offers its lines again (offers dedupe)
        if (Option.isNone(found) || !["validating", "in_progress"].includes(found.value.body.status)) return
        const { workspace_id: workspaceId, body: batch } = found.value
        const checker = BatchInput.makeChecker(Schema.decodeUnknownSync(Batch.BatchEndpoint)(batch.endpoint))
        const errors: Array<BatchInput.Invalid["error"]> = []
        const valid: Array<number> = []
        const content = yield* files.content(workspaceId, batch.input_file_id).pipe(
          Effect.catchTag("NotFound", () => Effect.succeed(Stream.empty))
        )
        yield* content.pipe(
          Stream.decodeText,
          Stream.splitLines,
          Stream.zipWithIndex,
          Stream.filter(([text]) => text.trim() !== ""),
          Stream.map(([text, index]) => checker.check(text, index + 1)),
          Stream.grouped(INSERT_ROWS),
          Stream.runForEach((checked) =>
            internal(Effect.gen(function*() {
              const rows = Arr.map(checked, (line): Record<string, string | number | null> => {
                if (line._tag === "Request") {
                  valid.push(line.line)
                  return {
                    batch_id: batchId,
                    line: line.line,
                    custom_id: line.customId,
                    request: JSON.stringify(line.body),
                    state: "pending",
                    result: null
                  }
                }
                errors.push(line.error)
                return {
                  batch_id: batchId,
                  line: line.error.line,
                  custom_id: line.customId,
                  request: null,
                  state: "failed",
                  result: resultLine(line.customId, null, null, { code: line.error.code, message: line.error.message })
                }
              })
              // a validation run again after a crash finds its rows already there
              yield* sql`INSERT INTO batch_lines ${sql.insert(rows)} ON CONFLICT DO NOTHING`
            }))
          )
        )
        const now = yield* unix
        const errorList = errors.length === 0 ? null : { object: "list", data: errors }
        if (valid.length === 0) {
          const failed: Batch.Batch = {
            ...batch,
            status: "failed",
            failed_at: now,
            errors: errorList ?? {
              object: "list",
              data: [{
                code: "empty_file",
                message: "input_file_id: the file has no line",
                param: "input_file_id",
                line: null
              }]
            }
          }
          yield* transition(failed, ["validating"])
          return
        }
        // started before its lines are offered: a line taken at once must find the batch running
        if (batch.status === "validating") {
          yield* transition({ ...batch, status: "in_progress", in_progress_at: now, errors: errorList }, ["validating"])
        }
        // the first lines only: each one done queues the one `linesInFlight` further (runLine)
        for (const line of valid.slice(0, linesInFlight)) yield* queue.offer({ kind: "line", batchId, line })
      })

    /** Runs one line, queues the next of its batch, and the batch's finalization after its last. */
    const runLine = (batchId: string, line: number, attempt: number) =>
      Effect.gen(function*() {
        const found = yield* runRow(batchId)
        if (Option.isNone(found)) return
        const batch = found.value.body
        if (batch.status !== "in_progress") return
        if (batch.expires_at !== null && batch.expires_at !== undefined && (yield* unix) >= batch.expires_at) {
          return yield* queue.offer({ kind: "finalize", batchId })
        }
        yield* answerLine(found.value, batchId, line, attempt)
        // also when the line was answered already: a run stopped between its answer and this offer
        const [next] = yield* internal(
          sql`SELECT line FROM batch_lines WHERE batch_id = ${batchId} AND request IS NOT NULL AND line > ${line}
          ORDER BY line LIMIT 1 OFFSET ${linesInFlight - 1}`.pipe(Effect.flatMap(decodeLineNumbers))
        )
        if (next !== undefined) yield* queue.offer({ kind: "line", batchId, line: next.line })
        const [left] = yield* internal(
          sql`SELECT COUNT(*) AS n FROM batch_lines WHERE batch_id = ${batchId} AND state = 'pending'`.pipe(
            Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ n: Position }))))
          )
        )
        if (Number(left?.n ?? 0) === 0) yield* queue.offer({ kind: "finalize", batchId })
      })

    /** Runs one line as the batch's creator and keeps its answer, unless one is already kept. */
    const answerLine = (
      run: typeof RunRow.Type,
      batchId: string,
      line: number,
      attempt: number
    ) =>
      Effect.gen(function*() {
        const { workspace_id: workspaceId, body: batch, caller, selection } = run
        const [row] = yield* internal(
          sql`SELECT custom_id, request, state FROM batch_lines WHERE batch_id = ${batchId} AND line = ${line}`.pipe(
            Effect.flatMap(decodeLineRows)
          )
        )
        if (row === undefined || row.state !== "pending" || row.request === null) return
        const headers = yield* SecretBox.open(secret.credentialKey, selection).pipe(
          Effect.flatMap(decodeSelection),
          Effect.mapError((error) =>
            new GatewayError.InternalError({ message: `batches: the batch's provider selection: ${error.message}` })
          )
        )
        const principal: Principal.Principal = {
          ...Principal.make({ keyId: caller.keyId, workspaceId, scopes: caller.scopes }),
          ...(caller.expiresAt === undefined ? {} : { expiresAt: caller.expiresAt })
        }
        const context = yield* RequestContext.inProcess({ principal, headers })
        const body = yield* internal(decodeRequest(row.request))
        const endpoint = BatchInput.endpointOf(Schema.decodeUnknownSync(Batch.BatchEndpoint)(batch.endpoint))
        const target = TargetConcurrency.targetOf(workspaceId, headers)
        const answer = yield* targets.run(
          target,
          Effect.result(gateway.handle({ endpoint, body, context })).pipe(Effect.tap((answer) =>
            // a provider's 429 pauses every line of its target for what it asks (Retry-After), not only this one
            answer._tag === "Failure" && GatewayError.toHttp(answer.failure).status === 429
              ? targets.slowDown(target, retryAfterSeconds(GatewayError.toHttp(answer.failure).headers))
              : Effect.void
          ))
        )
        let state: "completed" | "failed"
        let result: string
        if (answer._tag === "Success" && answer.success._tag === "Json") {
          state = answer.success.status < 400 ? "completed" : "failed"
          result = resultLine(row.custom_id, context.traceId, {
            status: answer.success.status,
            body: answer.success.body()
          }, null)
        } else if (answer._tag === "Success") {
          state = "failed"
          result = resultLine(row.custom_id, context.traceId, null, {
            code: "invalid_request",
            message: "a batch line cannot stream"
          })
        } else {
          const error = answer.failure
          const http = GatewayError.toHttp(error)
          // a provider's 429 slows the line down instead of failing it: the queue tries it again
          // later, and it (like every line of its target) waits out the target's pause first
          if (http.status === 429 && attempt < MAX_ATTEMPTS) return yield* Effect.fail(error)
          state = "failed"
          result = resultLine(row.custom_id, context.traceId, { status: http.status, body: http.body }, {
            code: String(http.body.error.code ?? http.status),
            message: http.body.error.message
          })
        }
        yield* internal(sql`UPDATE batch_lines SET ${sql.update({ state, result })}
        WHERE batch_id = ${batchId} AND line = ${line} AND state = 'pending'`)
      })

    /** The kept answers of one state, in line order, as a file's bytes (read a page at a time). */
    const resultsOf = (batchId: string, state: "completed" | "failed") =>
      Stream.paginate(0, (after: number) =>
        internal(
          sql`SELECT line, result FROM batch_lines WHERE batch_id = ${batchId} AND state = ${state}
          AND line > ${after} ORDER BY line LIMIT 500`.pipe(Effect.flatMap(decodeResultRows))
        ).pipe(Effect.map((rows) => {
          const last = rows.at(-1)
          return [
            rows.map((row) => `${row.result}\n`),
            last === undefined ? Option.none() : Option.some(last.line)
          ] as const
        }))).pipe(Stream.encodeText)

    /** Writes the output and error files and ends the batch: completed, cancelled or expired. */
    const finalize = (batchId: string) =>
      Effect.gen(function*() {
        const found = yield* runRow(batchId)
        if (Option.isNone(found)) return
        const { workspace_id: workspaceId, body: batch } = found.value
        if (batch.status !== "in_progress" && batch.status !== "cancelling" && batch.status !== "finalizing") return
        const now = yield* unix
        const expired = batch.status !== "cancelling" && batch.expires_at !== null && batch.expires_at !== undefined &&
          now >= batch.expires_at
        const current = yield* counts(batchId)
        if (batch.status === "in_progress" && !expired && current.total !== current.completed + current.failed) return
        let ending = batch
        if (batch.status === "in_progress") {
          ending = { ...batch, status: "finalizing", finalizing_at: now }
          if (!(yield* transition(ending, ["in_progress"]))) return
        }
        const write = (state: "completed" | "failed", count: number) =>
          count === 0
            ? Effect.succeed(null)
            : Effect.map(
              files.create(workspaceId, {
                filename: `${batchId}_${state === "completed" ? "output" : "error"}.jsonl`,
                purpose: "batch_output",
                content: resultsOf(batchId, state),
                maxBytes: Number.MAX_SAFE_INTEGER
              }),
              (file) => file.id
            )
        // lines a cancellation or the window's end kept from running are answered with why, in the error file
        if (ending.status === "cancelling" || expired) {
          const why = ending.status === "cancelling"
            ? { code: "batch_cancelled", message: "the batch was cancelled before this line ran" }
            : { code: "batch_expired", message: "the batch's 24h window ended before this line ran" }
          const pending = yield* internal(
            sql`SELECT line, custom_id FROM batch_lines WHERE batch_id = ${batchId} AND state = 'pending'`.pipe(
              Effect.flatMap(decodePendingRows)
            )
          )
          yield* Effect.forEach(pending, (row) =>
            internal(
              sql`UPDATE batch_lines SET ${
                sql.update({ state: "failed", result: resultLine(row.custom_id, null, null, why) })
              }
              WHERE batch_id = ${batchId} AND line = ${row.line} AND state = 'pending'`
            ), { discard: true })
        }
        const final = yield* counts(batchId)
        const outputFileId = yield* write("completed", final.completed)
        const errorFileId = yield* write("failed", final.failed)
        const done = yield* unix
        const ended: Batch.Batch = {
          ...ending,
          output_file_id: outputFileId,
          error_file_id: errorFileId,
          ...(ending.status === "cancelling"
            ? { status: "cancelled", cancelled_at: done }
            : expired
            ? { status: "expired", expired_at: done }
            : { status: "completed", completed_at: done })
        }
        yield* transition(ended, [ending.status])
      }).pipe(
        Effect.catchTag(
          "PayloadTooLarge",
          (error) => Effect.fail(new GatewayError.InternalError({ message: `batches: ${error._tag}` }))
        )
      )

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
