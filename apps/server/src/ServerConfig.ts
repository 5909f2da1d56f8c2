/**
 * The server's settings, read from the environment once at start-up (extensions.md, "Running it"):
 * the HTTP edge's own, and the pipeline's (`Pipeline.OptionsConfig` of `@switchyard/gateway`).
 */
import { Pipeline } from "@switchyard/gateway"
import { Logs, OtlpTraces } from "@switchyard/observability"
import { Config } from "effect"

export const ServerConfig = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.Port("PORT").pipe(Config.withDefault(8787)),
  maxBodyBytes: Config.Int("GATEWAY_MAX_BODY").pipe(Config.withDefault(10 * 1024 * 1024)),
  maxFileBytes: Config.Int("GATEWAY_MAX_FILE_BYTES").pipe(Config.withDefault(200 * 1024 * 1024)),
  worker: Config.Literals(["on", "off"], "GATEWAY_WORKER").pipe(Config.withDefault("on" as const)),
  shutdownGraceSeconds: Config.Int("GATEWAY_SHUTDOWN_GRACE_SECONDS").pipe(Config.withDefault(30)),
  headersTimeoutSeconds: Config.Int("GATEWAY_HEADERS_TIMEOUT_SECONDS").pipe(Config.withDefault(30)),
  bodyTimeoutSeconds: Config.Int("GATEWAY_BODY_TIMEOUT_SECONDS").pipe(Config.withDefault(60)),
  logs: Logs.LogsConfig,
  metrics: Config.Boolean("GATEWAY_METRICS").pipe(Config.withDefault(true)),
  // the standard OTEL_* variables; none when no traces endpoint is set
  traces: OtlpTraces.SettingsConfig,
  pipeline: Pipeline.OptionsConfig
})

export type ServerConfig = Config.Success<typeof ServerConfig>
