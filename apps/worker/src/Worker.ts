/**
 * The batch worker alone: the gateway preset's pipeline (same environment variables as the
 * server, so the same database and secret) and `BatchWorker` taking jobs from the batch queue,
 * logging as the server does (`GATEWAY_LOG_FORMAT`, `GATEWAY_LOG_LEVEL`). Run any number beside
 * the servers (started with `GATEWAY_WORKER=off`, or not).
 */
import { BatchWorker } from "@switchyard/batches"
import { Pipeline } from "@switchyard/gateway"
import { Logs } from "@switchyard/observability"
import { Config, Effect, Layer } from "effect"

/** What the worker reads from the environment: the pipeline's options and the log settings. */
export const WorkerConfig = Config.all({ pipeline: Pipeline.OptionsConfig, logs: Logs.LogsConfig })

export type WorkerConfig = Config.Success<typeof WorkerConfig>

/** The worker with the pipeline built from `options`, `options.batchWorkerConcurrency` takers. */
export const layer = (options: Pipeline.Options): Layer.Layer<never, Pipeline.StartupError> =>
  BatchWorker.layer({ concurrency: options.batchWorkerConcurrency }).pipe(
    Layer.provide(Pipeline.layer(options)),
    Layer.tap(() =>
      Effect.logInfo("batch worker: taking jobs").pipe(
        Effect.annotateLogs({ concurrency: options.batchWorkerConcurrency ?? BatchWorker.DEFAULT_CONCURRENCY })
      )
    )
  )

/** The worker configured from the environment (extensions.md, "Running it"). */
export const layerConfig = Layer.unwrap(Effect.map(WorkerConfig, (config) =>
  // outermost, so that building the pipeline logs in the configured format too
  layer(config.pipeline).pipe(Layer.provideMerge(Logs.Logs.layer(config.logs)))))
