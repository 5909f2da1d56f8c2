/**
 * The gateway's metrics (extensions.md, "Running it", metrics): the OpenTelemetry GenAI client
 * histograms by operation, provider and model, and the gateway's own `gateway_` counters, on
 * effect's `Metric` (so `PrometheusMetrics` renders them). They are recorded on the request path,
 * so recording is synchronous and takes no allocation once a series exists: each series is a
 * metric made once per label set, its state kept in plain numbers here and read by effect's
 * registry when the metrics are read (`KeptSeries`). Labels that callers choose (the model above all) are
 * bounded: past `MAX_SERIES` label sets of one metric, new ones are counted under `other`, so no
 * caller can grow the gateway's memory by inventing model names.
 */
import { Context, Effect, Layer, Metric } from "effect"
import * as KeptSeries from "./KeptSeries.ts"

/** Label sets kept per metric before new ones fold into `other`. */
export const MAX_SERIES = 1_000

/** Seconds: from a cache hit's sub-millisecond to a long generation's minutes. */
const durationBoundaries = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

/** Tokens: the GenAI conventions' advice, 1 to 64 M by powers of 4. */
const tokenBoundaries = Metric.exponentialBoundaries({ start: 1, factor: 4, count: 14 })

/** What an inference request is, for the GenAI metrics. */
export interface Operation {
  /** `chat`, `text_completion` or `embeddings`, as the GenAI conventions name them. */
  readonly operation: string
  readonly provider: string
  readonly model: string
}

export interface Usage {
  readonly inputTokens: number
  readonly outputTokens: number
}

type Attributes = Readonly<Record<string, string>>

/** A target's circuit: the parts of its key, the credential as its hash (never a secret). */
export interface Circuit {
  readonly provider: string
  readonly host: string
  readonly model: string
  readonly credentialId: string
}

export type CircuitState = "closed" | "half_open" | "open"

const circuitValues: Readonly<Record<CircuitState, number>> = { closed: 0, half_open: 1, open: 2 }

/**
 * One metric name's series by up to four label values, made on first use and kept, at most
 * `MAX_SERIES` of them. The values key nested maps rather than one joined string: a joined key is
 * a new string each request, hashed again on every lookup (2.4 µs a request over the gateway's
 * four lookups, profiled under load), while the values are the request's own strings, hashed once.
 */
const seriesOf = <M>(names: ReadonlyArray<string>, make: (attributes: Attributes) => M) => {
  const made: Level<Level<Level<Level<M>>>> = new Map()
  let size = 0
  let other: M | undefined
  return (a: Label, b: Label = "", c: Label = "", d: Label = ""): M => {
    const known = made.get(a)?.get(b)?.get(c)?.get(d)
    if (known !== undefined) return known
    if (size >= MAX_SERIES) return other ??= make(Object.fromEntries(names.map((name) => [name, "other"])))
    const values = [a, b, c, d]
    const series = make(Object.fromEntries(names.map((name, index) => [name, String(values[index])])))
    const byB = made.get(a) ?? new Map()
    const byC = byB.get(b) ?? new Map()
    const byD = byC.get(c) ?? new Map()
    made.set(a, byB)
    byB.set(b, byC)
    byC.set(c, byD)
    byD.set(d, series)
    size++
    return series
  }
}

/** A label's value: a status code is kept as the number it is, and written as text. */
type Label = string | number

type Level<A> = Map<Label, A>

export class GatewayMetrics extends Context.Service<GatewayMetrics, {
  /** Every request that ended, by route (`METHOD /path`) and status. */
  readonly request: (route: string, status: number) => void
  /** An inference request that was answered, with how long the gateway took over it. */
  readonly operation: (operation: Operation, seconds: number) => void
  readonly tokens: (operation: Operation, usage: Usage) => void
  /** A streamed answer's first chunk. */
  readonly firstToken: (operation: Operation, seconds: number) => void
  /** A cache lookup's result (`HIT`, `MISS`, `SEMANTIC HIT`, …). */
  readonly cacheLookup: (status: string) => void
  /** Retries made for a request (the attempts after the first). */
  readonly retries: (provider: string, count: number) => void
  /** What a request cost in US dollars at the model catalog's prices, by provider and model. */
  readonly cost: (provider: string, model: string, usd: number) => void
  /** A circuit's state as last read: 0 closed, 1 half open, 2 open. */
  readonly circuitState: (circuit: Circuit, state: CircuitState) => void
}>()("@switchyard/observability/GatewayMetrics") {
  /** Records nothing (`GATEWAY_METRICS=off`): the request path does no metric work at all. */
  static readonly layerOff: Layer.Layer<GatewayMetrics> = Layer.succeed(
    GatewayMetrics,
    GatewayMetrics.of({
      request: () => {},
      operation: () => {},
      tokens: () => {},
      firstToken: () => {},
      cacheLookup: () => {},
      retries: () => {},
      cost: () => {},
      circuitState: () => {}
    })
  )

  /** The metrics, recorded into the registry of the context the layer is built in. */
  static readonly layer: Layer.Layer<GatewayMetrics> = Layer.effect(
    GatewayMetrics,
    Effect.map(Effect.context<never>(), (context) => {
      const operationLabels = ["gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model"]
      const requests = seriesOf(
        ["route", "status"],
        (attributes) =>
          KeptSeries.counter(
            Metric.counter("gateway_requests_total", {
              description: "Requests answered, by route and status",
              attributes
            }),
            context
          )
      )
      const durations = seriesOf(
        operationLabels,
        (attributes) =>
          KeptSeries.histogram(
            Metric.histogram("gen_ai_client_operation_duration_seconds", {
              description: "GenAI operation duration",
              boundaries: durationBoundaries,
              attributes
            }),
            durationBoundaries,
            context
          )
      )
      const tokens = seriesOf(
        [...operationLabels, "gen_ai_token_type"],
        (attributes) =>
          KeptSeries.histogram(
            Metric.histogram("gen_ai_client_token_usage", {
              description: "Tokens used per GenAI operation, by token type",
              boundaries: tokenBoundaries,
              attributes
            }),
            tokenBoundaries,
            context
          )
      )
      const firstTokens = seriesOf(
        operationLabels,
        (attributes) =>
          KeptSeries.histogram(
            Metric.histogram("gen_ai_server_time_to_first_token_seconds", {
              description: "Time to the first chunk of a streamed answer",
              boundaries: durationBoundaries,
              attributes
            }),
            durationBoundaries,
            context
          )
      )
      const cacheLookups = seriesOf(
        ["status"],
        (attributes) =>
          KeptSeries.counter(
            Metric.counter("gateway_cache_lookups_total", { description: "Cache lookups, by status", attributes }),
            context
          )
      )
      const retries = seriesOf(
        ["provider"],
        (attributes) =>
          KeptSeries.counter(
            Metric.counter("gateway_retries_total", { description: "Retries made, by provider", attributes }),
            context
          )
      )
      const costs = seriesOf(
        ["gen_ai_provider_name", "gen_ai_request_model"],
        (attributes) =>
          KeptSeries.counter(
            Metric.counter("gateway_cost_usd_total", {
              description: "US dollars spent at the model catalog's prices, by provider and model",
              attributes
            }),
            context
          )
      )
      const circuits = seriesOf(
        ["provider", "host", "model", "credential_id"],
        (attributes) =>
          KeptSeries.gauge(
            Metric.gauge("gateway_circuit_state", {
              description: "Each target's circuit as last read: 0 closed, 1 half open, 2 open",
              attributes
            }),
            context
          )
      )
      return GatewayMetrics.of({
        request: (route, status) => requests(route, status).add(1),
        operation: (operation, seconds) =>
          durations(operation.operation, operation.provider, operation.model).observe(seconds),
        tokens: (operation, usage) => {
          tokens(operation.operation, operation.provider, operation.model, "input").observe(usage.inputTokens)
          tokens(operation.operation, operation.provider, operation.model, "output").observe(usage.outputTokens)
        },
        firstToken: (operation, seconds) =>
          firstTokens(operation.operation, operation.provider, operation.model).observe(seconds),
        cacheLookup: (status) => cacheLookups(status).add(1),
        retries: (provider, count) => {
          if (count > 0) retries(provider).add(count)
        },
        cost: (provider, model, usd) => costs(provider, model).add(usd),
        circuitState: (circuit, state) =>
          circuits(circuit.provider, circuit.host, circuit.model, circuit.credentialId).set(circuitValues[state])
      })
    })
  )
}
