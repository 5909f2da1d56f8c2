/**
 * The durable queue the batch work goes through: effect/persistence's `PersistedQueue` on the
 * gateway's own database (its SQL store on SQLite or Postgres). Every process that runs a worker
 * takes from it; a job held by a process that died is taken again once its lock expires, and a
 * job id is offered once (so a line is queued once however often its batch is validated again).
 *
 * Jobs: `validate` a new batch, run one `line`, `finalize` a batch (write its files).
 *
 * @example
 * import { BatchQueue } from "@switchyard/batches"
 * import { Effect } from "effect"
 *
 * const queued = BatchQueue.BatchQueue.use((queue) => queue.offer({ kind: "validate", batchId: "batch_1" }))
 */
import { Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { PersistedQueue } from "effect/persistence"
import type { SqlClient, SqlError } from "effect/sql"

export const Job = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("validate"), batchId: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("line"), batchId: Schema.String, line: Schema.Number }),
  Schema.Struct({ kind: Schema.Literal("finalize"), batchId: Schema.String })
])
export type Job = typeof Job.Type

/** How often a job is tried; a line that still fails on the last attempt has that failure recorded. */
export const MAX_ATTEMPTS = 8

/** The id that makes an offer of the same job a no-op. */
export const jobId = (job: Job): string =>
  job.kind === "line" ? `${job.batchId}:${job.line}` : `${job.batchId}:${job.kind}`

export class BatchQueue extends Context.Service<BatchQueue, {
  readonly offer: (job: Job) => Effect.Effect<void>
  readonly take: <A, E, R>(
    handle: (job: Job, attempt: number) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
}>()("@switchyard/batches/BatchQueue") {}

const make = Effect.gen(function*() {
  const queue = yield* PersistedQueue.make({
    name: "switchyard-batches",
    schema: Job,
    maxAttempts: MAX_ATTEMPTS,
    // a job that failed (a provider's 429 among them) comes back later and later
    retrySchedule: Schedule.exponential(Duration.seconds(1), 2)
  })
  return BatchQueue.of({
    // a queue that cannot be written is the database being down: the caller's request fails with it
    offer: (job) => queue.offer(job, { id: jobId(job) }).pipe(Effect.asVoid, Effect.orDie),
    take: (handle) =>
      queue.take((job, metadata) => handle(job, metadata.attempts)).pipe(
        Effect.catchTag("PersistedQueueError", (error) => Effect.die(error))
      )
  })
})

/** The queue from a `PersistedQueueStore` (memory for tests, SQL or Redis for the apps). */
export const layer: Layer.Layer<BatchQueue, never, PersistedQueue.PersistedQueueStore> = Layer.effect(
  BatchQueue,
  make
).pipe(Layer.provide(PersistedQueue.layer))

/**
 * The queue on the gateway's database. `pollInterval` is how soon an idle worker sees a new job;
 * `lockExpiration` how soon a job held by a process that died is taken by another.
 */
export const layerSql = (options?: {
  readonly pollInterval?: Duration.Input | undefined
  readonly lockExpiration?: Duration.Input | undefined
}): Layer.Layer<BatchQueue, SqlError.SqlError, SqlClient.SqlClient> =>
  Layer.unwrap(Effect.sync(() => {
    const lockExpiration = Duration.fromInputUnsafe(options?.lockExpiration ?? Duration.seconds(30))
    const store = PersistedQueue.layerStoreSql({
      tableName: "switchyard_batch_queue",
      pollInterval: options?.pollInterval ?? Duration.millis(200),
      lockExpiration,
      // a live worker renews its locks well before they lapse, so only a dead one loses its jobs
      lockRefreshInterval: Duration.divideUnsafe(lockExpiration, 3)
    })
    // done jobs are kept a week (a batch's window is a day), so the table does not grow forever
    const cleanup = PersistedQueue.layerCleanup({ timeToLive: Duration.days(7), failedTimeToLive: Duration.days(30) })
    return Layer.merge(layer, cleanup).pipe(Layer.provide(store))
  }))
