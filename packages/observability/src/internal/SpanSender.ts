/**
 * Sends batches of span records to the collector from a thread of their own (SpanThread.ts): the
 * thread writes each batch as OTLP/JSON and POSTs it, so neither the writing nor the request is
 * on the event loop. The exporter (SpanExporter.ts) keeps the queue, the schedule and the retries
 * here, on the event loop's clock.
 *
 * Why a thread: written on the event loop, a chat request's two spans cost it about a tenth of
 * the gateway's throughput under load (README, "Traces"). A batch's buffer is handed to the thread
 * (transferred, not copied) and handed back with its answer.
 *
 * The thread starts with the sender. A thread that dies fails the export it held, and the next
 * export starts another. The thread keeps the process alive only while an export is under way.
 */
import { Data, Effect, type Scope } from "effect"
import { extname } from "node:path"
import { Worker } from "node:worker_threads"
import type { SpanRecords } from "./SpanRecords.ts"
import type { Answer, Export, ThreadOptions } from "./SpanThread.ts"

export type Options = ThreadOptions

/** The collector could not be reached, or not within the timeout; or the thread failed. */
export class SendFailed extends Data.TaggedError("SendFailed")<{
  readonly message: string
  /** Whether the records are still there to be sent again. */
  readonly retriable: boolean
}> {}

/** What the collector answered. */
export interface Response {
  readonly status: number
  readonly retryAfter: string | undefined
}

export interface SpanSender {
  /**
   * POSTs the spans of `records` as one request; succeeds with the collector's answer, whatever
   * its status. Its buffer is the thread's until the answer, which hands it back; a thread that
   * dies keeps it, and the failure is then not `retriable`.
   */
  readonly send: (records: SpanRecords) => Effect.Effect<Response, SendFailed>
}

// the thread's script sits beside this module: `.ts` when run from source, `.js` once built
const script = new URL(`./SpanThread${extname(new URL(import.meta.url).pathname)}`, import.meta.url)

/** The thread's heap, at most, in MiB: the batch it holds and its body. */
const HEAP_LIMIT_MB = 64

/** A sender whose thread is stopped with the scope. */
export const make = (options: Options): Effect.Effect<SpanSender, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pending = new Map<number, (answer: Answer) => void>()
    let next = 0
    let thread: Worker | undefined

    const start = (): Worker => {
      const worker = new Worker(script, {
        workerData: options,
        resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
        // not copied onto the process's own stdio (see storage's SqliteWriter): it prints nothing
        stdout: true,
        stderr: true
      })
      worker.on("message", (answer: Answer) => {
        const done = pending.get(answer.id)
        pending.delete(answer.id)
        if (pending.size === 0) worker.unref()
        done?.(answer)
      })
      const died = (why: string) => {
        if (thread !== worker) return
        thread = undefined
        for (const [id, done] of pending) done({ id, error: why })
        pending.clear()
      }
      worker.on("error", (cause) => died(`the span thread failed: ${cause.message}`))
      worker.on("exit", (code) => died(`the span thread exited (${code})`))
      worker.stdout.resume()
      worker.stderr.resume()
      worker.unref()
      return worker
    }

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const last = thread
        thread = undefined
        for (const [id, done] of pending) done({ id, error: "the span thread has stopped" })
        pending.clear()
        await last?.terminate()
      })
    )
    // started now, so that it is up by the first export (a thread takes a while to load its
    // modules on a busy machine); one that cannot start is tried again at the first export
    thread = yield* Effect.sync(() => {
      try {
        return start()
      } catch {
        return undefined
      }
    })

    const send = (records: SpanRecords) =>
      Effect.callback<Response, SendFailed>((resume) => {
        let worker: Worker
        try {
          worker = thread ??= start()
        } catch (cause) {
          const why = cause instanceof Error ? cause.message : String(cause)
          return resume(
            Effect.fail(new SendFailed({ message: `the span thread cannot start: ${why}`, retriable: true }))
          )
        }
        const id = next++
        pending.set(id, (answer) => {
          if (answer.bytes !== undefined) records.handedBack(answer.bytes)
          resume(
            answer.status === undefined
              ? Effect.fail(
                new SendFailed({ message: answer.error ?? "no answer", retriable: answer.bytes !== undefined })
              )
              : Effect.succeed({ status: answer.status, retryAfter: answer.retryAfter })
          )
        })
        worker.ref()
        const bytes = records.bytes
        worker.postMessage({ id, bytes, length: records.length } satisfies Export, [bytes.buffer])
        // interrupted (at shutdown, past its timeout): the answer, if one comes, is let go
        return Effect.sync(() => {
          pending.delete(id)
          if (pending.size === 0) worker.unref()
        })
      })
    return { send }
  })
