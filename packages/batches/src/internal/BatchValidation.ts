import type { GatewayError } from "@switchyard/core"
import type { FileStore } from "@switchyard/files"
import { Batch } from "@switchyard/protocol"
import { Array as Arr, Effect, Option, Schema, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import * as BatchInput from "../BatchInput.ts"
import type { BatchQueue } from "../BatchQueue.ts"
import { type BatchStore, internal, unix } from "./BatchStore.ts"
import { resultLine } from "./ResultLine.ts"

/** How many lines are written per INSERT while a file is validated. */
const INSERT_ROWS = 200

/** A batch's validation step (the `validate` job), over the batches' store and the input file. */
export const make = (deps: {
  readonly sql: SqlClient.SqlClient
  readonly files: FileStore.FileStore["Service"]
  readonly queue: BatchQueue["Service"]
  readonly store: BatchStore
  readonly linesInFlight: number
}): (batchId: string) => Effect.Effect<void, GatewayError.InternalError> => {
  const { sql, files, queue, store: { runRow, transition }, linesInFlight } = deps

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

  return validate
}
