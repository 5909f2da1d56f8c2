/**
 * One node:sqlite database as an effect/sql `Connection`. node:sqlite is synchronous: each
 * statement runs to completion inside one `Effect.try`, so callers serialise access (the client
 * holds a semaphore) and keep statements short.
 *
 * A statement that finds the file's write lock taken (by the writer thread committing a batch, or
 * another process) waits for it between tries, as a fiber sleeps, rather than in SQLite's busy
 * handler: that one sleeps inside the statement, on the event loop, and every request stood still
 * until the lock was free.
 */
import { Clock, Duration, Effect, Schedule, type Scope, Stream } from "effect"
import { SqlClient, type SqlConnection, type SqlError } from "effect/sql"
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite"
import { type Row, toPlainRows, toSqlError, toSqliteValues } from "./sqliteValues.ts"

export interface SqliteConnection extends SqlConnection.Connection {
  /** Whether a transaction is open on the database (SQLite's autocommit flag is off). */
  readonly isTransaction: () => boolean
}

/** When a commit waits for the disk (`PRAGMA synchronous`), see `SqliteClientConfig.synchronous`. */
export type Synchronous = "full" | "normal"

export interface OpenOptions {
  readonly filename: string
  readonly busyTimeoutMillis: number
  readonly statementCacheSize: number
  readonly synchronous: Synchronous
}

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

const isValueRow = (row: unknown): row is ReadonlyArray<unknown> => Array.isArray(row)

const openDatabase = (options: OpenOptions): DatabaseSync => {
  const db = new DatabaseSync(options.filename, { enableForeignKeyConstraints: true })
  try {
    // WAL lets readers in other processes run beside the one writer; `:memory:` keeps "memory".
    db.exec("PRAGMA journal_mode = WAL")
    // NORMAL keeps a database consistent only under WAL, so it is never asked for without it
    // (`:memory:` stays "memory")
    if (options.synchronous === "normal" && db.prepare("PRAGMA journal_mode").get()?.journal_mode === "wal") {
      db.exec("PRAGMA synchronous = NORMAL")
    }
    db.exec("PRAGMA foreign_keys = ON")
    // SQLite's own handler would wait on the event loop: the connection waits between tries instead
    db.exec("PRAGMA busy_timeout = 0")
    return db
  } catch (cause) {
    db.close()
    throw cause
  }
}

/** A least-recently-used cache of prepared statements, keyed by their SQL text. */
const makeStatementCache = (db: DatabaseSync, capacity: number) => {
  const statements = new Map<string, StatementSync>()
  return (sql: string): StatementSync => {
    const hit = statements.get(sql)
    if (hit !== undefined) {
      statements.delete(sql)
      statements.set(sql, hit)
      return hit
    }
    const statement = db.prepare(sql)
    if (capacity <= 0) return statement
    statements.set(sql, statement)
    if (statements.size > capacity) {
      const oldest = statements.keys().next()
      if (oldest.done !== true) statements.delete(oldest.value)
    }
    return statement
  }
}

/** Opens the database; it is closed when the scope closes. */
export const open = (options: OpenOptions): Effect.Effect<SqliteConnection, SqlError.SqlError, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.try({ try: () => openDatabase(options), catch: (cause) => toSqlError(cause, "open") }),
      (db) =>
        Effect.sync(() => {
          if (db.isOpen) db.close()
        })
    ),
    (db) => fromDatabase(db, options)
  )

/**
 * The tries of a statement that found the write lock taken: 1, 2, 4 … ms apart, at most 100 ms,
 * for as long as the busy timeout (SQLite's own handler backs off alike).
 */
const busyTries = (timeoutMillis: number) =>
  Schedule.min([Schedule.exponential("1 millis"), Schedule.spaced("100 millis")]).pipe(
    Schedule.upTo({ duration: Duration.millis(timeoutMillis) })
  )

/** Another connection holds the lock in real time, which a test clock would never move past. */
const wallClock = Clock.Clock.defaultValue()

const isCommit = (sql: string) => /^\s*(COMMIT|END)\b/i.test(sql)

const isBusy = (error: SqlError.SqlError) => error.reason._tag === "LockTimeoutError"

const fromDatabase = (db: DatabaseSync, options: OpenOptions): SqliteConnection => {
  const cached = makeStatementCache(db, options.statementCacheSize)
  const tries = options.busyTimeoutMillis > 0 ? busyTries(options.busyTimeoutMillis) : undefined
  /**
   * SQLite undoes a statement that fails busy, so it may be tried again outside a transaction
   * (BEGIN included), and as a COMMIT; inside one the transaction must be rolled back instead
   * (under `BEGIN IMMEDIATE`, which holds the lock from the start, that does not happen).
   */
  const mayRetry = (sql: string, error: SqlError.SqlError) => isBusy(error) && (!db.isTransaction || isCommit(sql))

  /** Prepares (or takes from the cache) and binds one statement, then runs `f` on it synchronously. */
  const attempt = <A>(
    sql: string,
    params: ReadonlyArray<unknown>,
    cache: boolean,
    f: (statement: StatementSync, bound: ReadonlyArray<SQLInputValue>) => A
  ): Effect.Effect<A, SqlError.SqlError> => {
    const once = Effect.withFiber((fiber) => {
      // SqlClient.SafeIntegers asks for integers as bigint
      const readBigInts = fiber.getRef(SqlClient.SafeIntegers)
      return Effect.try({
        try: () => {
          const statement = cache ? cached(sql) : db.prepare(sql)
          statement.setReadBigInts(readBigInts)
          return f(statement, toSqliteValues(params))
        },
        catch: (cause) => toSqlError(cause, "execute")
      })
    })
    if (tries === undefined) return once
    // the schedule is only set up once the lock was found taken
    return Effect.catchIf(once, isBusy, (error) =>
      mayRetry(sql, error)
        ? Effect.retry(once, { schedule: tries, while: (again) => mayRetry(sql, again) }).pipe(
          Effect.provideService(Clock.Clock, wallClock)
        )
        : Effect.fail(error))
  }

  const rows = (sql: string, params: ReadonlyArray<unknown>, cache: boolean) =>
    attempt(sql, params, cache, (statement, bound): ReadonlyArray<Row> => {
      if (statement.columns().length > 0) return toPlainRows(statement.all(...bound))
      statement.run(...bound)
      return []
    })

  const values = (sql: string, params: ReadonlyArray<unknown>, cache: boolean) =>
    attempt(sql, params, cache, (statement, bound): ReadonlyArray<ReadonlyArray<unknown>> => {
      if (statement.columns().length === 0) {
        statement.run(...bound)
        return []
      }
      statement.setReturnArrays(true)
      try {
        const result: ReadonlyArray<unknown> = statement.all(...bound)
        return result.filter(isValueRow)
      } finally {
        statement.setReturnArrays(false)
      }
    })

  const raw = (sql: string, params: ReadonlyArray<unknown>) =>
    attempt(
      sql,
      params,
      true,
      (statement, bound) =>
        statement.columns().length > 0 ? toPlainRows(statement.all(...bound)) : statement.run(...bound)
    )

  const transformed = (effect: Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>, transformRows: TransformRows) =>
    transformRows === undefined ? effect : Effect.map(effect, transformRows)

  return {
    isTransaction: () => db.isTransaction,
    execute: (sql, params, transformRows) => transformed(rows(sql, params, true), transformRows),
    executeUnprepared: (sql, params, transformRows) => transformed(rows(sql, params, false), transformRows),
    executeRaw: raw,
    executeValues: (sql, params) => values(sql, params, true),
    executeValuesUnprepared: (sql, params) => values(sql, params, false),
    // Rows are read in one go: holding the single connection open while a consumer is slow would
    // stall every other fiber.
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(Effect.map(transformed(rows(sql, params, true), transformRows), Stream.fromArray))
  }
}
