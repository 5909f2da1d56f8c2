/**
 * The OTLP/JSON spans' batch exporter, as OpenTelemetry's BatchSpanProcessor behaves: ended spans
 * wait in a queue of at most `maxQueueSize` (`OTEL_BSP_MAX_QUEUE_SIZE`); past it a span is dropped
 * and counted. Batches of at most `maxBatchSize` (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`) go out every
 * `scheduleDelay` (`OTEL_BSP_SCHEDULE_DELAY`), or at once when a full batch waits, one export at a
 * time. An export that fails on the way or is answered 408, 429, 500, 502, 503 or 504 is tried
 * again a second later (or after the collector's `Retry-After`, when longer), three times at most;
 * one that still fails drops its batch, counted too.
 *
 * Why not effect's `OtlpExporter`, which the protobuf path keeps: its buffer has no bound, and it
 * forks an export per full batch, so a slow collector gathers exports in flight, each holding its
 * spans, for as long as the export timeout lets it.
 *
 * A span is written into its batch's buffer as it is pushed (`SpanRecords`), so a waiting span
 * holds no object of its own; the batch's OTLP/JSON is written, and POSTed, by the span thread
 * (`SpanSender`), which hands the buffer back to be written over by a later batch. The queue, the
 * schedule and the retries stay here, on the event loop's clock.
 */
import { Clock, Data, Duration, Effect, Fiber, Metric, Schedule, Scope, Semaphore } from "effect"
import { Headers } from "effect/http"
import { OtlpExporter } from "effect/observability"
import { FillingBatches } from "../FillingBatches.ts"
import { SpanRecords } from "./SpanRecords.ts"
import * as SpanSender from "./SpanSender.ts"

export interface Options {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly scheduleDelay: Duration.Duration
  readonly maxBatchSize: number
  readonly maxQueueSize: number
  /** How long the last export at shutdown may take. */
  readonly shutdownTimeout: Duration.Duration
  /** How long one POST may wait for the collector's answer, in ms. */
  readonly timeoutMs: number
  /** What every request body starts with, before its spans (separated by commas)... */
  readonly head: string
  /** ...and ends with. */
  readonly tail: string
}

/** An ended span, which writes itself into its batch's records. */
export interface Span {
  readonly recordTo: (records: SpanRecords) => void
}

/** Buffers kept for the next batches: one export at a time, so one is in use while one fills. */
const MAX_SPARE_BUFFERS = 2

/** The collector's answers that are worth another try, as effect's `HttpClient.retryTransient` judges them. */
const transientStatuses = new Set([408, 429, 500, 502, 503, 504])

/** Tries after the first, at most, each a second after the last failed (or after its `Retry-After`). */
const RETRIES = 3
const RETRY_DELAY = Duration.seconds(1)

/** The collector's `Retry-After` as a delay from `now`; none when absent or invalid. */
const retryAfterOf = (header: string | undefined, now: number): Duration.Duration | undefined => {
  if (header === undefined) return undefined
  const parsed = Headers.parseRetryAfter(header)
  return parsed._tag === "Success" ? Headers.retryAfterDelay(parsed.success, now) : undefined
}

/** An export that failed on the way, or was answered with a status not 2xx. */
class ExportFailed extends Data.TaggedError("ExportFailed")<{
  readonly message: string
  /** Worth another try: a failure on the way, or a status effect's `retryTransient` retries. */
  readonly transient: boolean
  readonly retryAfter: Duration.Duration | undefined
}> {}

/** `gateway_spans_dropped_total` by reason: the queue was full, or the batch's export failed. */
export const droppedSpans = (reason: "queue_full" | "export_failed") =>
  Metric.counter("gateway_spans_dropped_total", {
    description: "Trace spans dropped, by reason: the export queue was full, or their batch could not be exported",
    attributes: { reason },
    incremental: true
  })

/** A queue of ended spans, exported in batches; `push` never blocks and never fails. */
export const make = (
  options: Options
): Effect.Effect<{ readonly push: (span: Span) => void }, never, OtlpExporter.Flusher | Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const clock = yield* Clock.Clock
    const droppedFull = droppedSpans("queue_full")
    const droppedFailed = droppedSpans("export_failed")
    // a batch larger than the queue could never fill: the SDKs clamp it alike
    const maxBatchSize = Math.min(options.maxBatchSize, options.maxQueueSize)
    const sender = yield* SpanSender.make({
      url: options.url,
      headers: options.headers,
      compression: options.compression,
      timeoutMs: options.timeoutMs,
      head: options.head,
      tail: options.tail
    })

    // buffers of batches exported, handed back by the span thread and written over by the next
    // ones: a new buffer is new memory, which this machine's kernel hands out a page fault at a time
    const spare: Array<Uint8Array<ArrayBuffer>> = []
    const batches = new FillingBatches<SpanRecords>({
      batchSize: maxBatchSize,
      limit: options.maxQueueSize,
      make: (capacity) => new SpanRecords(spare.pop() ?? capacity),
      capacity: 64 * 1024
    })
    const oneExport = Semaphore.makeUnsafe(1)

    const push = (span: Span): void => {
      const filling = batches.filling()
      if (filling === undefined) return droppedFull.updateUnsafe(1, context)
      span.recordTo(filling)
      filling.count++
      batches.added()
    }

    /** One POST of the batch: fails unless the collector answered 2xx. */
    const sendOnce = (batch: SpanRecords) =>
      sender.send(batch).pipe(
        Effect.mapError((failed) =>
          new ExportFailed({ message: failed.message, transient: true, retryAfter: undefined })
        ),
        Effect.flatMap((response) =>
          response.status >= 200 && response.status < 300 ? Effect.void : Effect.fail(
            new ExportFailed({
              message: `the collector answered ${response.status}`,
              transient: transientStatuses.has(response.status),
              retryAfter: retryAfterOf(response.retryAfter, clock.currentTimeMillisUnsafe())
            })
          )
        ),
        // a longer Retry-After is waited out before the retry's own delay
        Effect.catch((failed) =>
          failed.transient && failed.retryAfter !== undefined && Duration.isGreaterThan(failed.retryAfter, RETRY_DELAY)
            ? Effect.andThen(Effect.sleep(Duration.subtract(failed.retryAfter, RETRY_DELAY)), Effect.fail(failed))
            : Effect.fail(failed)
        )
      )

    /** One batch off the front of the queue, exported; a failure drops and counts it. */
    const exportBatch = Effect.suspend(() => {
      const batch = batches.take()
      if (batch === undefined) return Effect.void
      return sendOnce(batch).pipe(
        Effect.retry({ while: (failed) => failed.transient, schedule: Schedule.spaced(RETRY_DELAY), times: RETRIES }),
        // a buffer the span thread kept (it died) is empty here, and not kept
        Effect.ensuring(Effect.sync(() => {
          if (spare.length < MAX_SPARE_BUFFERS && batch.bytes.length > 0) spare.push(batch.bytes)
        })),
        Effect.onInterrupt(() => Effect.sync(() => droppedFailed.updateUnsafe(batch.count, context))),
        Effect.catch((failed) => {
          droppedFailed.updateUnsafe(batch.count, context)
          return Effect.logDebug(`traces: ${batch.count} spans dropped, their export failed: ${failed.message}`)
        })
      )
    })

    /** Exports batches while any span waits (`all`), or while a full batch waits. */
    const drain = (all: boolean) =>
      Effect.whileLoop({
        while: () => all ? batches.waiting > 0 : batches.hasFull,
        body: () => exportBatch,
        step: () => {}
      })
    const exportWaiting = (all: boolean) => oneExport.withPermits(1)(drain(all))

    const loop = Effect.raceFirst(Effect.sleep(options.scheduleDelay), batches.fullWaiting.await).pipe(
      // the delay ends with one batch of what waits, however few; then the full ones
      Effect.andThen(oneExport.withPermits(1)(exportBatch)),
      Effect.andThen(exportWaiting(false)),
      Effect.forever
    )
    const loopFiber = yield* Effect.forkDetach(loop)

    const flusher = yield* OtlpExporter.Flusher
    yield* flusher.register(exportWaiting(true))
    // at shutdown: let an export under way end, stop the loop, then send what is left (bounded)
    yield* Effect.addFinalizer(() =>
      oneExport.withPermits(1)(Effect.andThen(Fiber.interrupt(loopFiber), drain(true))).pipe(
        Effect.timeoutOrElse({
          duration: options.shutdownTimeout,
          orElse: () => Effect.sync(() => droppedFailed.updateUnsafe(batches.waiting, context))
        })
      )
    )
    return { push }
  })
