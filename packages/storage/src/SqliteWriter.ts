/**
 * Writes to the embedded SQLite database in a worker thread. node:sqlite is synchronous: on the
 * event loop a request log record cost about 40 µs of CPU (22 bound values and four indexes a
 * row), and a stored Responses answer's transaction about 200 µs, during which no other request
 * moved. The thread has its own connection to the same file (WAL lets the gateway's connection
 * read beside it; the thread's `busy_timeout` and the client's tries let the two writers take
 * turns), so the event loop only hands it rows, and a write's caller waits for its commit without
 * blocking anyone.
 *
 * A write is committed when its effect succeeds: the gateway's own connection reads it from then
 * on. Use it for writes that read nothing back on the way (inserts, deletes by a condition); a
 * read-then-write transaction stays on the `SqlClient`.
 *
 * A thread that dies (a write too large for its heap, see `heapLimitMb`) fails the writes it held
 * and is started again for the next write, at most once a {@link RESTART_INTERVAL}: until then
 * writes fail at once with the reason, so a thread that cannot start (an unreadable file) is not
 * started again for every write.
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
import { Clock, Context, Data, Duration, Effect, FiberSet, Layer, type Scope } from "effect"
import { extname } from "node:path"
import { Worker } from "node:worker_threads"
import type { Synchronous } from "./internal/sqliteConnection.ts"
import type * as RowBytes from "./RowBytes.ts"

/** The writer thread failed a write, or stopped. */
export class WriterThreadError extends Data.TaggedError("WriterThreadError")<{ readonly message: string }> {}

/** A value SQLite binds as it is. */
export type Value = RowBytes.Value

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

/**
 * Rows as `RowBytes` wrote them, their values left for later beside them: `bytes` is transferred
 * to the thread (unusable here from then on), not copied.
 */
export interface EncodedRows {
  readonly sql: string
  readonly width: number
  readonly bytes: Uint8Array<ArrayBuffer>
  /** How many of `bytes` hold rows. */
  readonly length: number
  readonly later: ReadonlyArray<Value>
  readonly newId?: boolean
}

export interface WriterOptions {
  /** The database file: the gateway's own, migrated by its connection. */
  readonly filename: string
  /** When a commit waits for the disk, as the gateway's connection (`SqliteClient`'s `synchronous`). Default `full`. */
  readonly synchronous?: Synchronous | undefined
  /**
   * The thread's JavaScript heap, at most, in MiB (default {@link DEFAULT_HEAP_LIMIT_MB}): the rows
   * of the writes it holds. A write that needs more fails alone (the thread is started again)
   * rather than growing the process without bound.
   */
  readonly heapLimitMb?: number | undefined
}

/** The writer thread's heap limit unless told otherwise: a request log batch takes a few MiB. */
export const DEFAULT_HEAP_LIMIT_MB = 512

/** How soon a thread that died is started again, at the earliest. */
export const RESTART_INTERVAL = Duration.seconds(1)

const RESTARTS_AFTER = `${Duration.format(RESTART_INTERVAL)} or more later`

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
  readonly write: (
    statements: ReadonlyArray<Rows | EncodedRows>
  ) => Effect.Effect<ReadonlyArray<number>, WriterThreadError>
}>()("@switchyard/storage/SqliteWriter") {
  /** A writer thread on the database file, stopped with the layer. */
  static readonly layer = (options: WriterOptions): Layer.Layer<SqliteWriter> =>
    Layer.effect(SqliteWriter, make(options))
}

/** A writer thread on the database file, started again when it dies, stopped with the scope. */
export const make = (options: WriterOptions): Effect.Effect<SqliteWriter["Service"], never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    // the thread dies in a node event, outside any fiber: its log line runs in one of the layer's
    const inBackground = yield* FiberSet.makeRuntime()
    const pending = new Map<number, (answer: Answer) => void>()
    let next = 0
    let thread: Worker | undefined
    /** Why the last thread died, and until when (epoch ms) no new one is started. */
    let down: { readonly why: string; readonly until: number } | undefined
    let closed = false
    const fellDown = (why: string): string => {
      down = { why, until: clock.currentTimeMillisUnsafe() + Duration.toMillis(RESTART_INTERVAL) }
      return why
    }

    const start = (): Worker => {
      const worker = new Worker(script, {
        workerData: {
          filename: options.filename,
          busyTimeoutMillis: BUSY_TIMEOUT_MILLIS,
          synchronous: options.synchronous ?? "full"
        },
        resourceLimits: { maxOldGenerationSizeMb: options.heapLimitMb ?? DEFAULT_HEAP_LIMIT_MB },
        // not copied onto the process's own stdio: that copy would crash the gateway once its
        // stdout is closed (EPIPE), which its own log lines survive; the thread prints nothing
        // of its own (node:sqlite's experimental warning at most), so its output is let go
        stdout: true,
        stderr: true
      })
      worker.on("message", (answer: Answer) => {
        const done = pending.get(answer.id)
        pending.delete(answer.id)
        done?.(answer)
      })
      // a thread that died fails what it held; the next write starts another
      const died = (why: string) => {
        if (thread !== worker) return
        thread = undefined
        fellDown(why)
        const held = pending.size === 1 ? "1 write" : `${pending.size} writes`
        inBackground(
          Effect.logError(
            `sqlite writer: ${why}; ${held} failed, a new thread starts with the first write ${RESTARTS_AFTER}`
          )
        )
        for (const [id, done] of pending) done({ id, error: why })
        pending.clear()
      }
      worker.on("error", (cause) => died(`the writer thread failed: ${cause.message}`))
      worker.on("exit", (code) => died(`the writer thread exited (${code})`))
      worker.stdout.resume()
      worker.stderr.resume()
      // the thread must not keep the process alive on its own
      worker.unref()
      return worker
    }

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closed = true
        const last = thread
        thread = undefined
        for (const [id, done] of pending) done({ id, error: STOPPED })
        pending.clear()
        await last?.terminate()
      })
    )
    thread = start()

    /** The running thread, one started anew, or why there is none. */
    const running = (): Worker | string => {
      if (closed) return STOPPED
      if (thread !== undefined) return thread
      if (down !== undefined && clock.currentTimeMillisUnsafe() < down.until) return down.why
      down = undefined
      try {
        thread = start()
        return thread
      } catch (cause) {
        // no thread could be made (out of threads or memory): tried again after the interval
        return fellDown(`the writer thread cannot start: ${cause instanceof Error ? cause.message : String(cause)}`)
      }
    }
    return SqliteWriter.of({
      write: (statements) =>
        Effect.callback<ReadonlyArray<number>, WriterThreadError>((resume) => {
          const worker = running()
          if (typeof worker === "string") return resume(Effect.fail(new WriterThreadError({ message: worker })))
          const id = next++
          pending.set(id, ({ changes, error }) =>
            resume(
              error === undefined
                ? Effect.succeed(changes ?? [])
                : Effect.fail(new WriterThreadError({ message: error }))
            ))
          const transfer: Array<ArrayBuffer> = []
          for (const statement of statements) if ("bytes" in statement) transfer.push(statement.bytes.buffer)
          worker.postMessage({ id, statements }, transfer)
        })
    })
  })

const STOPPED = "the writer thread has stopped: its layer was closed"
