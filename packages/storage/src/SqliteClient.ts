/**
 * An effect/sql `SqlClient` over Node's built-in `node:sqlite` (`DatabaseSync`): the embedded
 * default of the gateway's storage. One connection, shared through a semaphore; transactions start
 * with `BEGIN IMMEDIATE` and nest as savepoints.
 *
 * @example
 * ```ts
 * import { SqliteClient } from "@switchyard/storage"
 * import { Effect } from "effect"
 * import { SqlClient } from "effect/sql"
 *
 * const program = Effect.gen(function*() {
 *   const sql = yield* SqlClient.SqlClient
 *   yield* sql`CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)`
 *   yield* sql`INSERT INTO notes ${sql.insert({ id: "n1", body: "hello" })}`
 *   return yield* sql<{ id: string; body: string }>`SELECT id, body FROM notes`
 * })
 * Effect.runPromise(program.pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))
 * ```
 */
import { Duration, Effect, Layer, type Scope, Semaphore } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlError, Statement } from "effect/sql"
import * as SqliteConnection from "./internal/sqliteConnection.ts"

/** When a commit waits for the disk: see {@link SqliteClientConfig.synchronous}. */
export type Synchronous = SqliteConnection.Synchronous

export interface SqliteClientConfig {
  /** A file path, or `:memory:` for a private in-memory database (tests). */
  readonly filename: string
  /** How long a statement waits for another process's lock before failing (`PRAGMA busy_timeout`). Default 5 seconds. */
  readonly busyTimeout?: Duration.Input | undefined
  /** How many prepared statements to keep, least recently used first out. Default 200; 0 turns the cache off. */
  readonly statementCacheSize?: number | undefined
  /**
   * When a commit waits for the disk. `full` (SQLite's default): every commit is on the disk when
   * it returns, through a power loss. `normal`: under WAL (a file database), commits are written
   * but synced only at checkpoints, so the database survives any crash of the process and stays
   * consistent through a power loss, which may take the last commits with it; a commit then costs
   * no `fsync` on the event loop (on our machine, a stored Responses answer's transaction went
   * from about 600 to 350 µs of CPU). Default `full`.
   */
  readonly synchronous?: Synchronous | undefined
  readonly spanAttributes?: Readonly<Record<string, unknown>> | undefined
}

/** What `SqlClient.driver` reports for this client. */
export const driver = "node-sqlite"

/** Opens the database and builds the client; the database is closed when the scope closes. */
export const make = (
  options: SqliteClientConfig
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const connection = yield* SqliteConnection.open({
      filename: options.filename,
      busyTimeoutMillis: Duration.toMillis(options.busyTimeout ?? "5 seconds"),
      statementCacheSize: options.statementCacheSize ?? 200,
      synchronous: options.synchronous ?? "full"
    })
    const semaphore = yield* Semaphore.make(1)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore,
      isTransaction: (conn) => conn.isTransaction()
    })
    return yield* SqlClient.make({
      driver,
      compiler: Statement.makeCompilerSqlite(),
      acquirer: acquirers.acquirer,
      borrower: acquirers.borrower,
      transactionAcquirer: acquirers.transactionAcquirer,
      onCommitFailure: acquirers.onCommitFailure,
      isTransaction: acquirers.isTransaction,
      // IMMEDIATE takes the write lock up front, so a transaction that reads and then writes never
      // fails with SQLITE_BUSY halfway when another process holds the file.
      beginTransaction: "BEGIN IMMEDIATE",
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      prepareTransactionControls: true,
      spanAttributes: [
        ...Object.entries(options.spanAttributes ?? {}),
        ["db.system.name", "sqlite"],
        ["db.namespace", options.filename]
      ]
    })
  })

/** Provides `SqlClient` on SQLite; the database stays open as long as the layer. */
export const layer = (options: SqliteClientConfig): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
