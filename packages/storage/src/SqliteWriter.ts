/**
 * Writes to the embedded SQLite database in a worker thread. node:sqlite is synchronous: on the
 * event loop a request log record cost about 40 µs of CPU (22 bound values and four indexes a
 * row), and a stored Responses answer's transaction about 200 µs, during which no other request
 * moved. The thread has its own connection to the same file (WAL lets the gateway's connection
 * read beside it, and `busy_timeout` lets the two writers take turns), so the event loop only
 * hands it rows, and a write's caller waits for its commit without blocking anyone.
 *
 * A write is committed when its effect succeeds: the gateway's own connection reads it from then
 * on. Use it for writes that read nothing back on the way (inserts, deletes by a condition); a
 * read-then-write transaction stays on the `SqlClient`.
 *
 * @example
 * import { SqliteWriter } from "@switchyard/storage"
 * import { Effect } from "effect"
 *
 * // two rows into `notes` in one transaction, each given a time-ordered id by the thread
 * const saved = SqliteWriter.SqliteWriter.use((writer) =>
 *   writer.write([{ sql: "INSERT INTO notes (id, body) VALUES (?, ?)", width: 1, values: ["a", "b"], newId: true }])
 * )
 * const live = SqliteWriter.SqliteWriter.layer({ filename: "./.switchyard/switchyard.db" })
 */
import { Context, Data, Effect, Layer, type Scope } from "effect"
import { extname } from "node:path"
import { Worker } from "node:worker_threads"
import type { Synchronous } from "./internal/sqliteConnection.ts"

/** The writer thread failed a write, or stopped. */
export class WriterThreadError extends Data.TaggedError("WriterThreadError")<{ readonly message: string }> {}

/** A value SQLite binds as it is. */
export type Value = string | number | null

/**
 * One statement run once per row: `values` holds the rows one after another, `width` values a
 * row (one flat array is the cheapest to hand to the thread). With `newId`, the thread binds a
 * new time-ordered id (UUIDv7) before each row's values, so `sql` has one placeholder more.
 */
export interface Rows {
  readonly sql: string
  readonly width: number
  readonly values: ReadonlyArray<Value>
  readonly newId?: boolean
}

export interface WriterOptions {
  /** The database file: the gateway's own, migrated by its connection. */
  readonly filename: string
  /** When a commit waits for the disk, as the gateway's connection (`SqliteClient`'s `synchronous`). Default `full`. */
  readonly synchronous?: Synchronous | undefined
}

/** What the thread answers a write: the rows each of its statements changed, or why it failed. */
interface Answer {
  readonly id: number
  readonly changes?: ReadonlyArray<number>
  readonly error?: string
}

/** How long the thread waits for the gateway's own connection to let go of the database. */
const BUSY_TIMEOUT_MILLIS = 5_000

// the thread's script sits beside this module: `.ts` when run from source, `.js` once built
const script = new URL(`./internal/SqliteWriterThread${extname(new URL(import.meta.url).pathname)}`, import.meta.url)

export class SqliteWriter extends Context.Service<SqliteWriter, {
  /**
   * Runs `statements` in the thread, all or nothing; succeeds once they are committed with the
   * number of rows each changed, in their order; fails (rolled back) with the thread's reason.
   */
  readonly write: (statements: ReadonlyArray<Rows>) => Effect.Effect<ReadonlyArray<number>, WriterThreadError>
}>()("@switchyard/storage/SqliteWriter") {
  /** A writer thread on the database file, stopped with the layer. */
  static readonly layer = (options: WriterOptions): Layer.Layer<SqliteWriter> =>
    Layer.effect(SqliteWriter, make(options))
}

/** A writer thread on the database file, stopped with the scope. */
export const make = (options: WriterOptions): Effect.Effect<SqliteWriter["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Map<number, (answer: Answer) => void>()
    let next = 0
    const worker = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Worker(script, {
          workerData: {
            filename: options.filename,
            busyTimeoutMillis: BUSY_TIMEOUT_MILLIS,
            synchronous: options.synchronous ?? "full"
          },
          // not copied onto the process's own stdio: that copy would crash the gateway once its
          // stdout is closed (EPIPE), which its own log lines survive; the thread prints nothing
          // of its own (node:sqlite's experimental warning at most), so its output is let go
          stdout: true,
          stderr: true
        })
      ),
      (worker) => Effect.promise(() => worker.terminate())
    )
    worker.on("message", (answer: Answer) => {
      const done = pending.get(answer.id)
      pending.delete(answer.id)
      done?.(answer)
    })
    // a thread that died fails what it held, and every later write
    let stopped: string | undefined
    const stop = (why: string) => {
      stopped = why
      for (const [id, done] of pending) done({ id, error: why })
      pending.clear()
    }
    worker.on("error", (cause) => stop(`the writer thread failed: ${cause.message}`))
    worker.on("exit", (code) => stop(`the writer thread exited (${code})`))
    worker.stdout.resume()
    worker.stderr.resume()
    // the thread must not keep the process alive on its own
    worker.unref()
    return SqliteWriter.of({
      write: (statements) =>
        Effect.callback<ReadonlyArray<number>, WriterThreadError>((resume) => {
          if (stopped !== undefined) return resume(Effect.fail(new WriterThreadError({ message: stopped })))
          const id = next++
          pending.set(id, ({ changes, error }) =>
            resume(
              error === undefined
                ? Effect.succeed(changes ?? [])
                : Effect.fail(new WriterThreadError({ message: error }))
            ))
          worker.postMessage({ id, statements })
        })
    })
  })
