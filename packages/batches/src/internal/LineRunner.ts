import { SecretBox, type ServerSecret } from "@switchyard/auth"
import { type Gateway, GatewayError, Principal, RequestContext } from "@switchyard/core"
import { Batch } from "@switchyard/protocol"
import { Effect, Option, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import * as BatchInput from "../BatchInput.ts"
import { type BatchQueue, MAX_ATTEMPTS } from "../BatchQueue.ts"
import * as TargetConcurrency from "../TargetConcurrency.ts"
import { type BatchStore, internal, Position, type RunRow, unix } from "./BatchStore.ts"
import { resultLine } from "./ResultLine.ts"

const LineRow = Schema.Struct({
  custom_id: Schema.NullOr(Schema.String),
  request: Schema.NullOr(Schema.String),
  state: Schema.String
})
const decodeLineRows = Schema.decodeUnknownEffect(Schema.Array(LineRow))
const decodeLineNumbers = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ line: Schema.Number })))
const decodeSelection = Schema.decodeUnknownEffect(Schema.Record(Schema.String, Schema.String))
const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)))

/**
 * Seconds a provider's `retry-after-ms` or `retry-after` asks for, at most 60; none:
 * `TargetConcurrency.DEFAULT_PAUSE_SECONDS`.
 */
export const retryAfterSeconds = (headers: Readonly<Record<string, string>>): number => {
  const ms = Number(headers["retry-after-ms"])
  const seconds = Number.isFinite(ms) && ms > 0 ? ms / 1000 : Number(headers["retry-after"])
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 60) : TargetConcurrency.DEFAULT_PAUSE_SECONDS
}

/** A batch's line step (the `line` job): runs one line through the gateway and keeps its answer. */
export const make = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly queue: BatchQueue["Service"]
  readonly gateway: Gateway.Gateway["Service"]
  readonly secret: ServerSecret.ServerSecret["Service"]
  readonly targets: TargetConcurrency.TargetConcurrency
  readonly store: BatchStore
  readonly linesInFlight: number
}): (batchId: string, line: number, attempt: number) => Effect.Effect<void, GatewayError.GatewayError> => {
  const { sql, queue, gateway, secret, targets, store: { runRow }, linesInFlight } = deps

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

  return runLine
}
