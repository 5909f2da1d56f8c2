/**
 * The request log's writes to the embedded SQLite database, in a worker thread. node:sqlite is
 * synchronous: written on the event loop, each record cost about 40 µs of CPU there (22 bound
 * values and four indexes a row, measured on our 2-core machine), and the gateway's chat
 * throughput fell by a third to a half. The thread has its own connection to the same file (WAL
 * lets the gateway's connection read beside it, and `busy_timeout` lets the two writers take
 * turns), so the event loop only hands it rows.
 *
 * @example
 * import { RequestLogStore, SqliteWriter } from "@switchyard/request-log"
 * import { Layer } from "effect"
 * // the reads on the gateway's SqlClient, the writes in a thread on the same file
 * const store = RequestLogStore.RequestLogStore.layerSqliteThread("./.switchyard/switchyard.db")
 */
import { Data, Effect, type Scope } from "effect"
import { extname } from "node:path"
import { Worker } from "node:worker_threads"

/** The writer thread failed a batch, or stopped. */
export class WriterThreadError extends Data.TaggedError("WriterThreadError")<{ readonly message: string }> {}

export interface SqliteWriter {
  /**
   * Inserts rows into `request_logs` in one transaction, each with a new time-ordered id (UUIDv7)
   * made by the thread: `values` holds the rows one after another, each row's values in the order
   * of `columns` (one flat array is the cheapest to hand to the thread).
   */
  readonly write: (
    columns: ReadonlyArray<string>,
    values: ReadonlyArray<string | number | null>
  ) => Effect.Effect<void, WriterThreadError>
}

/** How long the thread waits for the gateway's own connection to let go of the database. */
const BUSY_TIMEOUT_MILLIS = 5_000

// the thread's script sits beside this module: `.ts` when run from source, `.js` once built
const script = new URL(`./internal/SqliteWriterThread${extname(new URL(import.meta.url).pathname)}`, import.meta.url)

/** A writer thread on the SQLite database at `filename`, stopped with the scope. */
export const make = (filename: string): Effect.Effect<SqliteWriter, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Map<number, (error: string | undefined) => void>()
    let next = 0
    const worker = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Worker(script, {
          workerData: { filename, busyTimeoutMillis: BUSY_TIMEOUT_MILLIS },
          // not copied onto the process's own stdio: that copy would crash the gateway once its
          // stdout is closed (EPIPE), which its own log lines survive; the thread prints nothing
          // of its own (node:sqlite's experimental warning at most), so its output is let go
          stdout: true,
          stderr: true
        })
      ),
      (worker) => Effect.promise(() => worker.terminate())
    )
    worker.on("message", (answer: { readonly id: number; readonly error?: string }) => {
      const done = pending.get(answer.id)
      pending.delete(answer.id)
      done?.(answer.error)
    })
    // a thread that died fails what it held, and every later batch
    let stopped: string | undefined
    const stop = (why: string) => {
      stopped = why
      for (const done of pending.values()) done(why)
      pending.clear()
    }
    worker.on("error", (cause) => stop(`the writer thread failed: ${cause.message}`))
    worker.on("exit", (code) => stop(`the writer thread exited (${code})`))
    worker.stdout.resume()
    worker.stderr.resume()
    // the thread must not keep the process alive on its own
    worker.unref()
    return {
      write: (columns, values) =>
        Effect.callback<void, WriterThreadError>((resume) => {
          if (stopped !== undefined) return resume(Effect.fail(new WriterThreadError({ message: stopped })))
          const id = next++
          pending.set(
            id,
            (error) =>
              resume(error === undefined ? Effect.void : Effect.fail(new WriterThreadError({ message: error })))
          )
          worker.postMessage({ id, columns, values })
        })
    }
  })
