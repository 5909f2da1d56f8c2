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
 */
import { Cause, Duration, Effect, Fiber, Latch, Metric, Schedule, Scope, Semaphore } from "effect"
import { type HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import { OtlpExporter } from "effect/observability"

export interface Options {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly scheduleDelay: Duration.Duration
  readonly maxBatchSize: number
  readonly maxQueueSize: number
  /** How long the last export at shutdown may take. */
  readonly shutdownTimeout: Duration.Duration
  /** The request body of a batch of spans. */
  readonly body: (spans: ReadonlyArray<Uint8Array>) => HttpBody.HttpBody
}

/** `gateway_spans_dropped_total` by reason: the queue was full, or the batch's export failed. */
export const droppedSpans = (reason: "queue_full" | "export_failed") =>
  Metric.counter("gateway_spans_dropped_total", {
    description: "Trace spans dropped, by reason: the export queue was full, or their batch could not be exported",
    attributes: { reason },
    incremental: true
  })

/** A queue of ended spans' bytes, exported in batches; `push` never blocks and never fails. */
export const make = (
  options: Options
): Effect.Effect<
  { readonly push: (span: Uint8Array) => void },
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

    let queue: Array<Uint8Array> = []
    const batchWaiting = Latch.makeUnsafe(false)
    const oneExport = Semaphore.makeUnsafe(1)

    const push = (span: Uint8Array): void => {
      if (queue.length >= options.maxQueueSize) return droppedFull.updateUnsafe(1, context)
      queue.push(span)
      if (queue.length === maxBatchSize) batchWaiting.openUnsafe()
    }

    /** One batch off the front of the queue, exported; a failure drops and counts it. */
    const exportBatch = Effect.suspend(() => {
      const batch = queue.length <= maxBatchSize ? queue : queue.slice(0, maxBatchSize)
      queue = queue.length <= maxBatchSize ? [] : queue.slice(maxBatchSize)
      if (queue.length < maxBatchSize) batchWaiting.closeUnsafe()
      if (batch.length === 0) return Effect.void
      const withBody = HttpClientRequest.setBody(request, options.body(batch))
      const sent = options.compression === "gzip"
        ? Effect.flatMap(HttpClientRequest.compressBody(withBody, "gzip"), client.execute)
        : client.execute(withBody)
      return sent.pipe(
        Effect.flatMap((response) => Effect.ignore(response.arrayBuffer)),
        Effect.withTracerEnabled(false),
        Effect.onInterrupt(() => Effect.sync(() => droppedFailed.updateUnsafe(batch.length, context))),
        Effect.catchCause((cause) => {
          droppedFailed.updateUnsafe(batch.length, context)
          return Effect.logDebug(`traces: ${batch.length} spans dropped, their export failed`, Cause.squash(cause))
        })
      )
    })

    /** Exports batches while any span waits (`all`), or while a full batch waits. */
    const drain = (all: boolean) =>
      Effect.whileLoop({
        while: () => all ? queue.length > 0 : queue.length >= maxBatchSize,
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
          orElse: () => Effect.sync(() => droppedFailed.updateUnsafe(queue.length, context))
        })
      )
    )
    return { push }
  })
