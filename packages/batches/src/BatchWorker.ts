/**
 * The batch worker: fibers that take jobs from the shared queue and do them, for as long as the
 * layer lives. The server runs one unless `GATEWAY_WORKER=off`; `apps/worker` runs it alone. Any
 * number of processes may run one on the same database: each job is held by one taker at a time.
 *
 * @example
 * import { BatchWorker } from "@switchyard/batches"
 *
 * const worker = BatchWorker.layer({ concurrency: 8 })
 */
import { Effect, Layer } from "effect"
import { Batches } from "./Batches.ts"
import { BatchQueue } from "./BatchQueue.ts"

/**
 * How many jobs one worker does at once unless told otherwise: twice a target's bound
 * (`TargetConcurrency.DEFAULT_MAX_PER_TARGET`), so while the lines of one target fill its bound
 * the worker still has takers for the lines of other targets.
 */
export const DEFAULT_CONCURRENCY = 32

export const layer = (options?: { readonly concurrency?: number | undefined }): Layer.Layer<
  never,
  never,
  Batches | BatchQueue
> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const batches = yield* Batches
    const queue = yield* BatchQueue
    const taker = queue.take((job, attempt) =>
      batches.work(job, attempt).pipe(
        Effect.tapError((error) =>
          Effect.logWarning(`batches: ${job.kind} of ${job.batchId} will be tried again: ${error._tag}`)
        )
      )
    ).pipe(
      // a failed job is the queue's to retry; the taker goes on to the next
      Effect.ignore,
      Effect.forever
    )
    for (let index = 0; index < (options?.concurrency ?? DEFAULT_CONCURRENCY); index++) {
      yield* Effect.forkScoped(taker)
    }
  }))
