/**
 * The request log's SQLite writer, run in a worker thread (see SqliteWriter.ts): it inserts each
 * batch it is sent in one transaction on its own connection to the gateway's database file, and
 * answers `{ id, error? }`. It gives each row its id (UUIDv7, as RequestLogStore's are), which
 * takes that work and those strings off the event loop. Only node builtins and `uuid` are
 * imported: the thread loads this file alone, not the gateway's modules.
 */
import { randomFillSync } from "node:crypto"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { parentPort, workerData } from "node:worker_threads"
import { v7 as timeOrderedId } from "uuid"

interface Batch {
  readonly id: number
  readonly columns: ReadonlyArray<string>
  /** The rows' values but their ids, one row after another, each row's in the order of `columns`. */
  readonly values: ReadonlyArray<string | number | null>
}

const { busyTimeoutMillis, filename } = workerData as { readonly filename: string; readonly busyTimeoutMillis: number }
const db = new DatabaseSync(filename)
db.exec(`PRAGMA busy_timeout = ${busyTimeoutMillis}`)
// under WAL (the gateway's connection sets it), NORMAL syncs the log at checkpoints rather than at
// every commit: the database stays consistent through a crash or a power loss, which may at most
// take the last batches written with it (a request log's, not an answer's). Without WAL it would
// not be safe, so it is only asked for under WAL.
if (db.prepare("PRAGMA journal_mode").get()?.journal_mode === "wal") db.exec("PRAGMA synchronous = NORMAL")

// the ids' random bits, cut from a pool as core's RandomBytes does on the event loop (this thread
// loads no gateway module, so it keeps a pool of its own): one draw per 256 ids rather than one each
const pool = new Uint8Array(4_096)
let drawn = pool.length
const newId = (): string => {
  if (drawn + 16 > pool.length) {
    randomFillSync(pool)
    drawn = 0
  }
  drawn += 16
  return timeOrderedId({ random: pool.subarray(drawn - 16, drawn) })
}

// one row an INSERT, bound row by row: cheaper for the thread than one statement of 100 rows,
// whose 2,300 values were spread into a single call
const inserts = new Map<string, StatementSync>()
const insertOf = (columns: ReadonlyArray<string>): StatementSync => {
  const key = columns.join(",")
  let statement = inserts.get(key)
  if (statement === undefined) {
    statement = db.prepare(`INSERT INTO request_logs (id, ${key}) VALUES (?, ${columns.map(() => "?").join(", ")})`)
    inserts.set(key, statement)
  }
  return statement
}

const write = (batch: Batch): void => {
  const insert = insertOf(batch.columns)
  const width = batch.columns.length
  db.exec("BEGIN IMMEDIATE")
  try {
    for (let start = 0; start < batch.values.length; start += width) {
      insert.run(newId(), ...batch.values.slice(start, start + width))
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
