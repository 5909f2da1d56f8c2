/**
 * The request log's SQLite writer, run in a worker thread (see SqliteWriter.ts): it inserts each
 * batch it is sent in one transaction on its own connection to the gateway's database file, and
 * answers `{ id, error? }`. Only node builtins are imported: the thread loads this file alone.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { parentPort, workerData } from "node:worker_threads"

/** Rows per INSERT: far below SQLite's limit of bound parameters. */
const ROWS_PER_INSERT = 100

interface Batch {
  readonly id: number
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string | number | null>>
}

const { busyTimeoutMillis, filename } = workerData as { readonly filename: string; readonly busyTimeoutMillis: number }
const db = new DatabaseSync(filename)
db.exec(`PRAGMA busy_timeout = ${busyTimeoutMillis}`)

const inserts = new Map<string, StatementSync>()
const insertOf = (columns: ReadonlyArray<string>, rows: number): StatementSync => {
  const key = `${columns.join(",")}|${rows}`
  let statement = inserts.get(key)
  if (statement === undefined) {
    const row = `(${columns.map(() => "?").join(", ")})`
    statement = db.prepare(
      `INSERT INTO request_logs (${columns.join(", ")}) VALUES ${Array.from({ length: rows }, () => row).join(", ")}`
    )
    inserts.set(key, statement)
  }
  return statement
}

const write = (batch: Batch): void => {
  db.exec("BEGIN IMMEDIATE")
  try {
    for (let start = 0; start < batch.rows.length; start += ROWS_PER_INSERT) {
      const chunk = batch.rows.slice(start, start + ROWS_PER_INSERT)
      insertOf(batch.columns, chunk.length).run(...chunk.flat())
    }
    db.exec("COMMIT")
  } catch (cause) {
    db.exec("ROLLBACK")
    throw cause
  }
}

parentPort?.on("message", (batch: Batch) => {
  try {
    write(batch)
    parentPort?.postMessage({ id: batch.id })
  } catch (cause) {
    parentPort?.postMessage({ id: batch.id, error: cause instanceof Error ? cause.message : String(cause) })
  }
})
