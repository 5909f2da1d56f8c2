/**
 * The OTLP/JSON spans' batch exporter, as OpenTelemetry's BatchSpanProcessor behaves: ended spans
 * wait in a queue of at most `maxQueueSize` (`OTEL_BSP_MAX_QUEUE_SIZE`); past it a span is dropped
 * and counted. Batches of at most `maxBatchSize` (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`) go out every
 * `scheduleDelay` (`OTEL_BSP_SCHEDULE_DELAY`), or at once when a full batch waits, one export at a
 * time. An export that still fails after its retries drops its batch, counted too.
 *
 * Why not effect's `OtlpExporter`, which the protobuf path keeps: its buffer has no bound, and it
 * forks an export per full batch, so a slow collector gathers exports in flight, each holding its
 * spans, for as long as the export timeout lets it.
 *
 * A span is written into its batch's request body as it is pushed (`JsonBytes`), so a waiting
 * span holds no object of its own and an export copies nothing: the body is the batch's buffer.
 */
import { Cause, Duration, Effect, Fiber, Latch, Metric, Schedule, Scope, Semaphore } from "effect"
import { type HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import { OtlpExporter } from "effect/observability"
import { JsonBytes } from "./JsonBytes.ts"

export interface Options {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly scheduleDelay: Duration.Duration
  readonly maxBatchSize: number
  readonly maxQueueSize: number
  /** How long the last export at shutdown may take. */
  readonly shutdownTimeout: Duration.Duration
  /** What every request body starts with, before its spans (separated by commas)... */
  readonly head: Uint8Array
  /** ...and ends with. */
  readonly tail: Uint8Array
  /** The request body of a batch's bytes (head, spans, tail). */
  readonly body: (bytes: Uint8Array) => HttpBody.HttpBody
}

/** An ended span, which writes itself into its batch's body. */
export interface Span {
  readonly writeTo: (out: JsonBytes) => void
}

/** Spans written into one request body. */
interface Batch {
  readonly out: JsonBytes
  count: number
}

const COMMA = 0x2c
/** Buffers kept for the next batches: one export at a time, so one is in use while one fills. */
const MAX_SPARE_BUFFERS = 2

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
): Effect.Effect<
  { readonly push: (span: Span) => void },
  never,
  HttpClient.HttpClient | OtlpExporter.Flusher | Scope.Scope
> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const droppedFull = droppedSpans("queue_full")
    const droppedFailed = droppedSpans("export_failed")
    // a batch larger than the queue could never fill: the SDKs clamp it alike
    const maxBatchSize = Math.min(options.maxBatchSize, options.maxQueueSize)
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.filterStatusOk,
      // the exporter's own calls make no spans (each would be exported in turn)
      HttpClient.transformResponse(Effect.provideService(HttpClient.TracerPropagationEnabled, false)),
      HttpClient.retryTransient({ schedule: Schedule.spaced(Duration.seconds(1)), times: 3 })
    )
    const request = HttpClientRequest.post(options.url, {
      headers: { ...options.headers, "user-agent": "switchyard-otlp-exporter" }
    })

    /** Full batches waiting, oldest first; then the one being filled. */
    const full: Array<Batch> = []
    let filling: Batch | undefined = undefined
    /** Spans waiting, in both. */
    let waiting = 0
    // a batch's buffer starts at the size the last full one needed, so it is rarely grown
    let capacity = options.head.length + options.tail.length + 1024 * Math.min(maxBatchSize, 64)
    // buffers of batches exported, written over by the next ones: a batch's buffer lives until its
    // export ends, past young-generation GCs, and a new one each time grew the old generation and
    // the memory outside the heap that V8 collects it for (full GCs in an 8 s run of the chat path
    // under load: 9 with a new buffer a batch, 6 with these, as many as without traces)
    const spare: Array<JsonBytes> = []
    const batchWaiting = Latch.makeUnsafe(false)
    const oneExport = Semaphore.makeUnsafe(1)

    const seal = (batch: Batch): void => {
      batch.out.raw(options.tail)
      if (batch.count === maxBatchSize) capacity = Math.max(capacity, batch.out.length + (batch.out.length >> 3))
    }

    const push = (span: Span): void => {
      if (waiting >= options.maxQueueSize) return droppedFull.updateUnsafe(1, context)
      if (filling === undefined) {
        const reused = spare.pop()
        if (reused !== undefined) reused.length = 0
        filling = { out: reused ?? new JsonBytes(capacity), count: 0 }
        filling.out.raw(options.head)
      } else {
        filling.out.byte(COMMA)
      }
      span.writeTo(filling.out)
      filling.count++
      waiting++
      if (filling.count === maxBatchSize) {
        seal(filling)
        full.push(filling)
        filling = undefined
        batchWaiting.openUnsafe()
      }
    }

    /** The oldest full batch, else the one being filled, however few it holds. */
    const take = (): Batch | undefined => {
      let batch = full.shift()
      if (batch === undefined && filling !== undefined) {
        batch = filling
        filling = undefined
        seal(batch)
      }
      if (full.length === 0) batchWaiting.closeUnsafe()
      if (batch !== undefined) waiting -= batch.count
      return batch
    }

    /** One batch off the front of the queue, exported; a failure drops and counts it. */
    const exportBatch = Effect.suspend(() => {
      const batch = take()
      if (batch === undefined) return Effect.void
      const withBody = HttpClientRequest.setBody(request, options.body(batch.out.written()))
      const sent = options.compression === "gzip"
        ? Effect.flatMap(HttpClientRequest.compressBody(withBody, "gzip"), client.execute)
        : client.execute(withBody)
      return sent.pipe(
        Effect.flatMap((response) => Effect.ignore(response.arrayBuffer)),
        // answered, so the body was sent whole and its bytes are read no more; a failed or
        // interrupted export's buffer is left to the GC, as its socket may not be done with it
        Effect.tap(() =>
          Effect.sync(() => {
            if (spare.length < MAX_SPARE_BUFFERS) spare.push(batch.out)
          })
        ),
        Effect.withTracerEnabled(false),
        Effect.onInterrupt(() => Effect.sync(() => droppedFailed.updateUnsafe(batch.count, context))),
        Effect.catchCause((cause) => {
          droppedFailed.updateUnsafe(batch.count, context)
          return Effect.logDebug(`traces: ${batch.count} spans dropped, their export failed`, Cause.squash(cause))
        })
      )
    })

    /** Exports batches while any span waits (`all`), or while a full batch waits. */
    const drain = (all: boolean) =>
      Effect.whileLoop({
        while: () => all ? waiting > 0 : full.length > 0,
        body: () => exportBatch,
        step: () => {}
      })
    const exportWaiting = (all: boolean) => oneExport.withPermits(1)(drain(all))

    const loop = Effect.raceFirst(Effect.sleep(options.scheduleDelay), batchWaiting.await).pipe(
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
          orElse: () => Effect.sync(() => droppedFailed.updateUnsafe(waiting, context))
        })
      )
    )
    return { push }
  })
