/**
 * The whole server as one Layer: the route table on node:http over the gateway pipeline
 * (`@switchyard/gateway`'s `Pipeline`: storage, identity, stored provider access and every stage).
 * Its type proves nothing is missing.
 */
import { BatchWorker } from "@switchyard/batches"
import { OrphanSweep } from "@switchyard/files"
import { Pipeline } from "@switchyard/gateway"
import { GatewayMetrics, Logs, OtlpTraces, Tracing } from "@switchyard/observability"
import { RecordedGateway } from "@switchyard/request-log"
import { Duration, Layer } from "effect"
import { BodyDeadlines } from "./http/BodyDeadlines.ts"
import * as NodeEdge from "./http/NodeEdge.ts"
import * as Readiness from "./Readiness.ts"
import * as Routes from "./Routes.ts"
import * as CircuitGauges from "./routes/CircuitGauges.ts"
import * as FileRoutes from "./routes/FileRoutes.ts"
import * as ManagementRoute from "./routes/ManagementRoute.ts"
import * as MetricsRoute from "./routes/MetricsRoute.ts"
import type { ServerConfig } from "./ServerConfig.ts"

/**
 * Removes the bytes of uploads a crash cut off (extensions.md, "Files and batches"). An upload
 * lives at most node's request timeout (headers + body + 1 s), so bytes found without a file at
 * two passes that far apart, twice over and at least 15 minutes, belong to no upload in progress.
 * On SQLite this process is the only writer: every orphan goes at start-up, before it listens.
 */
const uploadSweep = (config: ServerConfig) =>
  OrphanSweep.layer({
    every: Duration.max(
      Duration.minutes(15),
      Duration.seconds(2 * (config.headersTimeoutSeconds + config.bodyTimeoutSeconds + 1))
    ),
    soleProcess: config.pipeline.databaseUrl === undefined
  })

export const layer = (config: ServerConfig): Layer.Layer<never, unknown> => {
  const bodyTimeoutMs = config.bodyTimeoutSeconds * 1000
  // the request path's spans go out; background work (the batch worker, the stores' upkeep) makes none
  const traces = config.traces === undefined ? Layer.empty : OtlpTraces.layer(config.traces)
  const pipelineTraced = config.traces === undefined ? Layer.empty : Tracing.layerEnabled
  return NodeEdge.layer(
    {
      host: config.host,
      port: config.port,
      gracefulShutdownMs: config.shutdownGraceSeconds * 1000,
      headersTimeoutMs: config.headersTimeoutSeconds * 1000,
      bodyTimeoutMs
    },
    {
      patternOf: Routes.patternOf,
      node: Routes.nodeRoutes({ body: { maxBytes: config.maxBodyBytes, timeoutMs: bodyTimeoutMs } }),
      router: Routes.routerRoutes.pipe(
        // prompt completions call the pipeline in process: each call is recorded in the request log
        Layer.provide(RecordedGateway.layer("POST /v1/prompts/:id/completions")),
        Layer.provide(Layer.succeed(ManagementRoute.BodyTimeoutMs, bodyTimeoutMs)),
        Layer.provide(Layer.succeed(MetricsRoute.Enabled, config.metrics)),
        // each scrape reads the circuits afresh for gateway_circuit_state
        Layer.provide(CircuitGauges.layer),
        Layer.provide(Layer.succeed(ManagementRoute.InferenceBodyBytes, config.maxBodyBytes)),
        Layer.provide(Layer.succeed(FileRoutes.UploadBytes, config.maxFileBytes)),
        // /ready asks the pipeline's database, and Redis when the pipeline keeps its stores there
        Layer.provide(Readiness.layer({ redisUrl: config.pipeline.redisUrl }))
      )
    }
  ).pipe(
    Layer.provide(traces),
    // the batch worker shares the server's pipeline; with GATEWAY_WORKER=off the worker app runs it
    Layer.merge(
      config.worker === "on" ? BatchWorker.layer({ concurrency: config.pipeline.batchWorkerConcurrency }) : Layer.empty
    ),
    // built before the server listens: node:http accepts connections as soon as it listens
    Layer.provide(
      Layer.mergeAll(
        uploadSweep(config).pipe(
          Layer.provideMerge(
            // the metrics too: batch lines and assistant runs count their cost and tokens
            Pipeline.layer(config.pipeline).pipe(
              Layer.provide(pipelineTraced),
              Layer.provide(config.metrics ? GatewayMetrics.GatewayMetrics.layer : Layer.empty)
            )
          )
        ),
        BodyDeadlines.layer,
        // off, /metrics is gone and nothing on the request path records into a metric
        config.metrics ? GatewayMetrics.GatewayMetrics.layer : GatewayMetrics.GatewayMetrics.layerOff
      )
    ),
    // outermost, so that building the pipeline logs in the configured format too
    Layer.provideMerge(Logs.Logs.layer(config.logs))
  )
}
