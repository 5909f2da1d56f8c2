/**
 * Spans out over OTLP/HTTP (extensions.md, "Running it", traces) on effect's OTLP exporter: OTLP/JSON
 * (the default) from our own span recorder (`OtlpJsonSpans`), protobuf from effect's `OtlpTracer`;
 * configured by the standard OpenTelemetry variables. Tracing is on when a traces endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) and not turned off
 * (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`).
 *
 * Exporting never slows or fails a request: ended spans are queued and sent in batches by the
 * exporter's own fibers. OTLP/JSON's queue holds at most `OTEL_BSP_MAX_QUEUE_SIZE` spans (more are
 * dropped and counted in `gateway_spans_dropped_total`), one export at a time, a failed one retried
 * a few times and then dropped; protobuf's (effect's `OtlpExporter`) has no bound, and skips a
 * collector that is down or slower than `OTEL_EXPORTER_OTLP_TIMEOUT` for a minute.
 */
import { Config, Duration, Layer, Option, Schema, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import { nodeFetch } from "./internal/NodeFetch.ts"
import * as SpanExporter from "./internal/SpanExporter.ts"
import * as OtlpJsonSpans from "./OtlpJsonSpans.ts"
import * as Tracing from "./Tracing.ts"

/** The service name when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` gives one. */
export const DEFAULT_SERVICE_NAME = "switchyard"

export interface Settings {
  /** Where the spans are POSTed: the traces endpoint, or the base endpoint with `/v1/traces`. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  readonly compression: "gzip" | "none"
  /** One export's limit; past it the export fails as a collector that is down does. */
  readonly timeoutMs: number
  /** Undefined when `OTEL_RESOURCE_ATTRIBUTES` names the service itself. */
  readonly serviceName: string | undefined
  readonly exportIntervalMs: number
  readonly maxBatchSize: number
  /** OTLP/JSON only: spans waiting for export at most (`OTEL_BSP_MAX_QUEUE_SIZE`, default 2048). */
  readonly maxQueueSize: number
  readonly sampler: Tracing.Sampler
}

/**
 * `gateway_spans_dropped_total` by reason (OTLP/JSON): `queue_full` past `OTEL_BSP_MAX_QUEUE_SIZE`,
 * `export_failed` for the spans of an export that failed after its retries.
 */
export const droppedSpans = SpanExporter.droppedSpans

/** OpenTelemetry's built-in samplers (`OTEL_TRACES_SAMPLER`). */
const samplers = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

/** A variable of the traces signal, falling back to the one for every signal. */
const signal = <A>(make: (name: string) => Config.Config<A>, name: string): Config.Config<Option.Option<A>> =>
  Config.option(make(`OTEL_EXPORTER_OTLP_TRACES_${name}`).pipe(Config.orElse(() => make(`OTEL_EXPORTER_OTLP_${name}`))))

const headersOf = (name: string) => Config.Record(Schema.String, Schema.StringFromUriComponent, name)

const endpoint = Config.option(Config.URL("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")).pipe(
  Config.flatMap((traces) =>
    Option.isSome(traces) ? Config.succeed(Option.some(traces.value.toString())) : Config.option(
      Config.URL("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.map((base) => {
        // the base endpoint is a prefix: the traces go to its /v1/traces, as the spec says
        base.pathname = `${base.pathname.replace(/\/$/, "")}/v1/traces`
        return base.toString()
      }))
    )
  )
)

/** A whole number of spans, at least one. */
const atLeastOne = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "must be a whole number >= 1" }))

/** `OTEL_RESOURCE_ATTRIBUTES` naming `service.name`: then it, not the default, names the service. */
const namesService = (attributes: string): boolean =>
  attributes.split(",").some((entry) => entry.split("=")[0]?.trim() === "service.name")

/** The settings from the environment; none when tracing is off. */
export const SettingsConfig: Config.Config<Settings | undefined> = Config.all({
  disabled: Config.Boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporters: Config.String("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
  url: endpoint,
  headers: signal(headersOf, "HEADERS"),
  protocol: signal((name) => Config.Literals(["http/protobuf", "http/json"], name), "PROTOCOL"),
  compression: signal((name) => Config.Literals(["gzip", "none"], name), "COMPRESSION"),
  timeoutMs: signal(Config.Int, "TIMEOUT"),
  serviceName: Config.option(Config.String("OTEL_SERVICE_NAME")),
  resourceAttributes: Config.String("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault("")),
  exportIntervalMs: Config.Int("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5_000)),
  maxBatchSize: Config.schema(atLeastOne, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE").pipe(Config.withDefault(512)),
  maxQueueSize: Config.schema(atLeastOne, "OTEL_BSP_MAX_QUEUE_SIZE").pipe(Config.withDefault(2048)),
  sampler: Config.Literals(samplers, "OTEL_TRACES_SAMPLER").pipe(Config.withDefault("parentbased_always_on")),
  // the traceidratio samplers' share, 0 to 1
  samplerArg: Config.schema(
    Schema.FiniteFromString.check(Schema.isBetween({ minimum: 0, maximum: 1 })),
    "OTEL_TRACES_SAMPLER_ARG"
  ).pipe(Config.withDefault(1))
}).pipe(Config.map((env): Settings | undefined => {
  const off = env.disabled || env.exporters.split(",").some((name) => name.trim().toLowerCase() === "none")
  if (off || Option.isNone(env.url)) return undefined
  return {
    url: env.url.value,
    headers: Option.getOrElse(env.headers, () => ({})),
    // JSON rather than the spec's default protobuf: it has the lean recorder (OtlpJsonSpans), where
    // protobuf has effect's spans and JavaScript encoder, measured at 3x its CPU (README, "Traces")
    protocol: Option.getOrElse(env.protocol, () => "http/json" as const),
    compression: Option.getOrElse(env.compression, () => "none" as const),
    timeoutMs: Option.getOrElse(env.timeoutMs, () => 10_000),
    serviceName: Option.getOrElse(
      env.serviceName,
      () => namesService(env.resourceAttributes) ? undefined : DEFAULT_SERVICE_NAME
    ),
    exportIntervalMs: env.exportIntervalMs,
    maxBatchSize: env.maxBatchSize,
    maxQueueSize: env.maxQueueSize,
    sampler: {
      parentBased: env.sampler.startsWith("parentbased_"),
      ratio: env.sampler.endsWith("always_on") ? 1 : env.sampler.endsWith("always_off") ? 0 : env.samplerArg
    }
  }
}))

/**
 * effect's exporter's fetch: node's http rather than undici (NodeFetch says why), bounded, as it
 * sets no limit of its own on a collector that never answers.
 */
const fetchWithin = (timeoutMs: number): typeof globalThis.fetch => (input, init) => {
  const timeout = AbortSignal.timeout(timeoutMs)
  return nodeFetch(input, {
    ...init,
    signal: init?.signal == null ? timeout : AbortSignal.any([init.signal, timeout])
  })
}

/** OTLP/protobuf on effect's `OtlpTracer`, its exporter on effect's fetch client (node's, bounded). */
const protobufTracer = (settings: Settings) =>
  OtlpTracer.layer({
    url: settings.url,
    resource: { serviceName: settings.serviceName },
    headers: settings.headers,
    compression: settings.compression,
    exportInterval: Duration.millis(settings.exportIntervalMs),
    maxBatchSize: settings.maxBatchSize,
    shutdownTimeout: Duration.millis(settings.timeoutMs)
  }).pipe(
    Layer.provide(OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(FetchHttpClient.Fetch, fetchWithin(settings.timeoutMs)))
  )

/** OTLP/JSON from our own span recorder and its span thread (OtlpJsonSpans says why). */
const jsonTracer = (settings: Settings) =>
  Layer.effect(
    Tracer.Tracer,
    OtlpJsonSpans.make({
      url: settings.url,
      resource: { serviceName: settings.serviceName },
      headers: settings.headers,
      compression: settings.compression,
      exportInterval: Duration.millis(settings.exportIntervalMs),
      maxBatchSize: settings.maxBatchSize,
      maxQueueSize: settings.maxQueueSize,
      shutdownTimeout: Duration.millis(settings.timeoutMs),
      timeoutMs: settings.timeoutMs
    })
  ).pipe(Layer.provideMerge(OtlpExporter.layerFlusher))

/**
 * A tracer exporting to `settings.url` (`OTEL_RESOURCE_ATTRIBUTES` adds to its resource), with
 * {@link Tracing.Enabled} on. Provide it to what makes the request path's spans.
 */
export const layer = (settings: Settings) =>
  (settings.protocol === "http/json" ? jsonTracer(settings) : protobufTracer(settings)).pipe(
    Layer.merge(Layer.succeed(Tracing.Enabled, true)),
    Layer.merge(Layer.succeed(Tracing.Sampling, settings.sampler))
  )
