/**
 * The SQLite writer thread (see SqliteWriter.ts): it runs the writes it is sent on its own
 * connection to the database file, each all or nothing, and answers `{ id, changes }` (the rows
 * each of its statements changed) or `{ id, error }` for each. Only node builtins, `uuid` and
 * `RowBytes` (which imports nothing) are imported: the thread loads none of the gateway's modules.
 */
import { randomFillSync } from "node:crypto"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads"
import { v7 as timeOrderedId } from "uuid"
import { readRows, type Value } from "../RowBytes.ts"

/** One statement run once per row; see `SqliteWriter.Rows` and `SqliteWriter.EncodedRows`. */
type Rows =
  & {
    readonly sql: string
    readonly width: number
    readonly newId?: boolean
  }
  & (
    | { readonly values: ReadonlyArray<Value> }
    | { readonly bytes: Uint8Array; readonly length: number; readonly later: ReadonlyArray<Value> }
  )

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
// 2,300 values (the request log's) were spread into a single call; a row's values are copied into
// one array kept for the next row, not sliced into a new one (the request log's rows: 4.9 µs a row
// against 5.6); answers the rows changed
const row: Array<Value> = []
const run = (rows: Rows): number => {
  const { newId: withId, sql, width } = rows
  if (!Number.isInteger(width) || width < 1) {
    throw new RangeError(`rows of ${width}: width must be a whole number from 1`)
  }
  const statement = statementOf(sql)
  const offset = withId === true ? 1 : 0
  row.length = width + offset
  let changes = 0
  const runRow = (values: ReadonlyArray<Value>, start: number) => {
    if (withId === true) row[0] = newId()
    for (let i = 0; i < width; i++) row[offset + i] = values[start + i] ?? null
    changes += Number(statement.run(...row).changes)
  }
  if ("bytes" in rows) {
    readRows(rows.bytes, rows.length, width, rows.later, (values) => runRow(values, 0))
    return changes
  }
  const values = rows.values
  if (values.length % width !== 0) throw new RangeError(`${values.length} values are not rows of ${width}`)
  for (let start = 0; start < values.length; start += width) runRow(values, start)
  return changes
}

interface Answer {
  readonly id: number
  readonly changes?: ReadonlyArray<number>
  readonly error?: string
}

/** One write inside a savepoint of the group's transaction: all of it, or (failing) none of it. */
const inSavepoint = ({ id, statements }: Write): Answer => {
  db.exec("SAVEPOINT write")
  try {
    const changes = statements.map(run)
    db.exec("RELEASE write")
    return { id, changes }
  } catch (cause) {
    // an I/O error or a full disk can have rolled back the whole transaction, and with it the
    // writes before this one: then the group fails together
    if (!db.isTransaction) throw cause
    db.exec("ROLLBACK TO write")
    db.exec("RELEASE write")
    return { id, error: messageOf(cause) }
  }
}

/**
 * Commits the writes that have queued up as one transaction, each inside a savepoint of its own:
 * a write that fails is rolled back alone, and the others commit together. A commit is most of a
 * small write's cost (nine tenths of this thread's CPU for a stored response, profiled), so under
 * load a group shares one. Never throws: a thread that died would fail every later write.
 */
const commit = (writes: ReadonlyArray<Write>): Array<Answer> => {
  try {
    db.exec("BEGIN IMMEDIATE")
    const answers = writes.map(inSavepoint)
    db.exec("COMMIT")
    return answers
  } catch (cause) {
    try {
      if (db.isTransaction) db.exec("ROLLBACK")
    } catch {
      // the connection is left as it is: the next group's BEGIN says what is wrong with it
    }
    return writes.map(({ id }) => ({ id, error: messageOf(cause) }))
  }
}

const messageOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

const port = parentPort
port?.on("message", (first: Write) => {
  // what was sent while the last group committed is waiting on the port: it joins this one
  const writes = [first]
  for (let queued = receiveMessageOnPort(port); queued !== undefined; queued = receiveMessageOnPort(port)) {
    writes.push(queued.message as Write)
  }
  for (const answer of commit(writes)) port.postMessage(answer)
})
