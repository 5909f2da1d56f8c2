/**
 * The batch worker alone: the gateway preset's pipeline (same environment variables as the
 * server, so the same database and secret) and `BatchWorker` taking jobs from the batch queue.
 * Run any number beside the servers (started with `GATEWAY_WORKER=off`, or not).
 */
import { BatchWorker } from "@switchyard/batches"
import { Pipeline } from "@switchyard/gateway"
import { Effect, Layer } from "effect"

/** The worker with the pipeline built from `options`. */
export const layer = (options: Pipeline.Options): Layer.Layer<never, Pipeline.StartupError> =>
  BatchWorker.layer().pipe(
    Layer.provide(Pipeline.layer(options)),
    Layer.tap(() => Effect.logInfo("batch worker: taking jobs"))
  )

/** The worker configured from the environment (extensions.md, "Running it"). */
export const layerConfig = Layer.unwrap(Effect.map(Pipeline.OptionsConfig, layer))
