import { GatewayError } from "@switchyard/core"
import type { FileStore } from "@switchyard/files"
import type { Batch } from "@switchyard/protocol"
import { Effect, Option, Schema, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import { type BatchStore, internal, unix } from "./BatchStore.ts"
import { resultLine } from "./ResultLine.ts"

const decodePendingRows = Schema.decodeUnknownEffect(
  Schema.Array(Schema.Struct({ line: Schema.Number, custom_id: Schema.NullOr(Schema.String) }))
)
const ResultRow = Schema.Struct({ line: Schema.Number, result: Schema.String })
const decodeResultRows = Schema.decodeUnknownEffect(Schema.Array(ResultRow))

/** A batch's last step (the `finalize` job): its output and error files, and its end state. */
export const make = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly files: FileStore.FileStore["Service"]
  readonly store: BatchStore
}): (batchId: string) => Effect.Effect<
  void,
  GatewayError.InternalError | GatewayError.InvalidRequest
> => {
  const { sql, files, store: { counts, runRow, transition } } = deps

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

  return finalize
}
