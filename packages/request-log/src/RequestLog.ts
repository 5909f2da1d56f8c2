/**
 * The request log's writer (extensions.md, "Running it", request log). A request that ends hands
 * its entry to `record`, which writes it as a row of bytes into the batch being filled
 * (`LogRows`): no database, no waiting, and nothing of the request kept on the heap; its bodies
 * and hook results (when it has them) are serialised when the batch is written. A background
 * fiber writes the batches (every `flushIntervalMs`, or at once when `batchSize` rows wait);
 * when the buffer is full, or a batch cannot be written, rows are dropped and counted in
 * `gateway_log_records_dropped_total` — a slow or failing database never slows or fails a
 * request. What is buffered is written when the layer closes (at shutdown). Another fiber deletes
 * the records older than the retention period every hour.
 *
 * @example
 * import { RequestLog, RequestLogStore } from "@switchyard/request-log"
 * import { Layer } from "effect"
 * const log = RequestLog.RequestLog.layer({ retentionDays: 7 }).pipe(
 *   Layer.provide(RequestLogStore.RequestLogStore.layerSql) // needs an SqlClient (@switchyard/storage)
 * )
 */
import { FillingBatches } from "@switchyard/observability"
import { RetentionSweep } from "@switchyard/storage"
import { Config, Context, Duration, Effect, Fiber, Layer, Metric, Schema, Semaphore } from "effect"
import type { Entry } from "./LogRecord.ts"
import { LogRows } from "./LogRows.ts"
import { RequestLogStore } from "./RequestLogStore.ts"

export interface Options {
  /**
   * Record requests (`GATEWAY_REQUEST_LOG`; default true). Off, nothing is recorded, while the
   * records already kept stay listed and the retention sweep still runs.
   */
  readonly enabled?: boolean | undefined
  /** Keep request and response bodies (`GATEWAY_LOG_BODIES`; default false). */
  readonly bodies?: boolean | undefined
  /** Records older than this are deleted (`GATEWAY_LOG_RETENTION_DAYS`; default 30). */
  readonly retentionDays?: number | undefined
  /** Entries the buffer holds before it drops new ones (default 10,000). */
  readonly bufferLimit?: number | undefined
  /** How often the buffer is written (default 1,000 ms). */
  readonly flushIntervalMs?: number | undefined
  /** Entries per batch; this many waiting are written at once (default 500). */
  readonly batchSize?: number | undefined
}

export const DEFAULT_RETENTION_DAYS = 30
export const DEFAULT_BUFFER_LIMIT = 10_000
export const DEFAULT_FLUSH_INTERVAL_MS = 1_000
export const DEFAULT_BATCH_SIZE = 500

/**
 * The options the environment sets: `GATEWAY_REQUEST_LOG` (default on), `GATEWAY_LOG_BODIES`
 * (default false), `GATEWAY_LOG_RETENTION_DAYS` (default 30, at least 1).
 */
export const OptionsConfig: Config.Config<Options> = Config.all({
  enabled: Config.Boolean("GATEWAY_REQUEST_LOG").pipe(Config.withDefault(true)),
  bodies: Config.Boolean("GATEWAY_LOG_BODIES").pipe(Config.withDefault(false)),
  retentionDays: Config.schema(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a whole number of days >= 1" })),
    "GATEWAY_LOG_RETENTION_DAYS"
  ).pipe(Config.withDefault(DEFAULT_RETENTION_DAYS))
})

/** How often the retention sweep runs. */
const SWEEP_INTERVAL = Duration.hours(1)

/** How long the last write at shutdown may take before what is left is dropped. */
const SHUTDOWN_FLUSH_LIMIT = Duration.seconds(5)

const DAY_MS = 86_400_000

/** `gateway_log_records_dropped_total` by reason: the buffer was full, or the batch could not be written. */
export const droppedRecords = (reason: "buffer_full" | "write_failed") =>
  Metric.counter("gateway_log_records_dropped_total", {
    description: "Request log records dropped, by reason: the buffer was full, or their batch could not be written",
    attributes: { reason },
    incremental: true
  })

export class RequestLog extends Context.Service<RequestLog, {
  /** Whether bodies are kept: callers note them only then. */
  readonly bodies: boolean
  /** Buffers one request's entry; synchronous and never fails (a full buffer drops and counts it). */
  readonly record: (entry: Entry) => void
  /** Writes what is buffered now (the background fiber does this on its own). */
  readonly flush: Effect.Effect<void>
}>()("@switchyard/request-log/RequestLog") {
  static readonly layer = (options: Options = {}): Layer.Layer<RequestLog, never, RequestLogStore> =>
    Layer.effect(RequestLog, make(options))

  /** Records nothing: for embedders that keep no log. */
  static readonly layerOff: Layer.Layer<RequestLog> = Layer.succeed(
    RequestLog,
    RequestLog.of({ bodies: false, record: () => {}, flush: Effect.void })
  )
}

const make = (options: Options) =>
  Effect.gen(function*() {
    const store = yield* RequestLogStore
    const context = yield* Effect.context<never>()
    const bufferLimit = options.bufferLimit ?? DEFAULT_BUFFER_LIMIT
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE
    const retentionMs = (options.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS
    const droppedFull = droppedRecords("buffer_full")
    const droppedFailed = droppedRecords("write_failed")

    const batches = new FillingBatches.FillingBatches({
      batchSize,
      limit: bufferLimit,
      make: (capacity) => new LogRows(capacity)
    })
    // one batch written at a time: a flush waits for the batch the background fiber is writing,
    // so what a caller flushed is written when its flush returns (GET /v1/logs flushes, then reads)
    const writing = Semaphore.makeUnsafe(1)

    const record = (entry: Entry): void => {
      const filling = batches.filling()
      if (filling === undefined) return droppedFull.updateUnsafe(1, context)
      try {
        filling.add(entry)
      } catch {
        // run where a request ends (a response's close event): an entry that cannot be written
        // is counted as lost, never thrown there
        return droppedFailed.updateUnsafe(1, context)
      }
      batches.added()
    }

    /** One batch off the front of the buffer, written; a failure drops and counts it. */
    const writeBatch = writing.withPermits(1)(Effect.suspend(() => {
      const batch = batches.take()
      if (batch === undefined) return Effect.void
      return store.write(batch).pipe(
        // stopped half-way (shutdown past its limit): the batch is lost, and counted
        Effect.onInterrupt(() => Effect.sync(() => droppedFailed.updateUnsafe(batch.count, context))),
        Effect.catchCause((cause) => {
          droppedFailed.updateUnsafe(batch.count, context)
          return Effect.logWarning(
            `request log: ${batch.count} records dropped, the batch could not be written`,
            cause
          )
        })
      )
    }))

    const flush = Effect.whileLoop({
      while: () => batches.waiting > 0,
      body: () => writeBatch,
      step: () => {}
    }).pipe(Effect.andThen(writing.withPermits(1)(Effect.void)))

    /**
     * The batches buffered now. What is recorded while they are written waits for a full batch or
     * the interval: written at once, it would go out a few rows a batch, and each batch is a
     * commit (on SQLite, 10-row batches cost the writer ~4 × the CPU a row of 500-row batches).
     */
    const writeBuffered = Effect.suspend(() => {
      let left = batches.batches
      return Effect.whileLoop({
        while: () => left > 0 && batches.waiting > 0,
        body: () => writeBatch,
        step: () => {
          left--
        }
      })
    })

    const writer = Effect.raceFirst(
      Effect.sleep(options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS),
      batches.fullWaiting.await
    )
      .pipe(Effect.andThen(writeBuffered), Effect.forever)

    const sweep = RetentionSweep.forever({
      what: "request log",
      items: "records",
      interval: SWEEP_INTERVAL,
      deleteOlder: (nowMs) => store.deleteBefore(nowMs - retentionMs)
    })

    yield* Effect.forkScoped(sweep)
    if (options.enabled === false) return RequestLog.of({ bodies: false, record: () => {}, flush: Effect.void })
    const writerFiber = yield* Effect.forkDetach(writer)
    // at shutdown: stop the writer, then write what is left (bounded: a stalled database cannot hold the exit)
    yield* Effect.addFinalizer(() =>
      Fiber.interrupt(writerFiber).pipe(
        Effect.andThen(flush),
        Effect.timeoutOrElse({
          duration: SHUTDOWN_FLUSH_LIMIT,
          orElse: () => Effect.sync(() => droppedFailed.updateUnsafe(batches.waiting, context))
        })
      )
    )
    return RequestLog.of({ bodies: options.bodies ?? false, record, flush })
  })
