/**
 * The SQLite writer thread (see SqliteWriter.ts): it runs each write it is sent in one
 * transaction on its own connection to the database file, and answers `{ id, error? }`. Only node
 * builtins and `uuid` are imported: the thread loads this file alone, not the gateway's modules.
 */
import { randomFillSync } from "node:crypto"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { parentPort, workerData } from "node:worker_threads"
import { v7 as timeOrderedId } from "uuid"

/** One statement run once per row; see `SqliteWriter.Rows`. */
interface Rows {
  readonly sql: string
  readonly width: number
  readonly values: ReadonlyArray<string | number | null>
  readonly newId?: boolean
}

interface Write {
  readonly id: number
  readonly statements: ReadonlyArray<Rows>
}

const { busyTimeoutMillis, filename, synchronous } = workerData as {
  readonly filename: string
  readonly busyTimeoutMillis: number
  readonly synchronous: "full" | "normal"
}
const db = new DatabaseSync(filename, { enableForeignKeyConstraints: true })
db.exec(`PRAGMA busy_timeout = ${busyTimeoutMillis}`)
// as the gateway's own connection: NORMAL keeps a database consistent only under WAL
if (synchronous === "normal" && db.prepare("PRAGMA journal_mode").get()?.journal_mode === "wal") {
  db.exec("PRAGMA synchronous = NORMAL")
}

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

// the writers' statements are a handful of fixed texts, each prepared once
const prepared = new Map<string, StatementSync>()
const statementOf = (sql: string): StatementSync => {
  let statement = prepared.get(sql)
  if (statement === undefined) {
    statement = db.prepare(sql)
    prepared.set(sql, statement)
  }
  return statement
}

// one row a run, bound row by row: cheaper for the thread than one statement of 100 rows, whose
// 2,300 values (the request log's) were spread into a single call
const run = ({ newId: withId, sql, values, width }: Rows): void => {
  const statement = statementOf(sql)
  for (let start = 0; start < values.length; start += width) {
    const row = values.slice(start, start + width)
    if (withId === true) statement.run(newId(), ...row)
    else statement.run(...row)
  }
}

const write = (statements: ReadonlyArray<Rows>): void => {
  db.exec("BEGIN IMMEDIATE")
  try {
    for (const rows of statements) run(rows)
    db.exec("COMMIT")
  } catch (cause) {
    db.exec("ROLLBACK")
    throw cause
  }
}

parentPort?.on("message", ({ id, statements }: Write) => {
  try {
    write(statements)
    parentPort?.postMessage({ id })
  } catch (cause) {
    parentPort?.postMessage({ id, error: cause instanceof Error ? cause.message : String(cause) })
  }
})
