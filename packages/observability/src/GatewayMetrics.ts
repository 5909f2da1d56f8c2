/**
 * The gateway's metrics (extensions.md, "Running it", metrics): the OpenTelemetry GenAI client
 * histograms by operation, provider and model, and the gateway's own `gateway_` counters, on
 * effect's `Metric` (so `PrometheusMetrics` renders them). They are recorded on the request path,
 * so recording is synchronous and takes no allocation once a series exists: each series is a
 * metric made once per label set and kept. Labels that callers choose (the model above all) are
 * bounded: past `MAX_SERIES` label sets of one metric, new ones are counted under `other`, so no
 * caller can grow the gateway's memory by inventing model names.
 */
import { Context, Effect, Layer, Metric } from "effect"

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

/** One metric name's series, made on first use and kept, at most `MAX_SERIES` of them. */
const seriesOf = <M>(make: (attributes: Attributes) => M) => {
  const made = new Map<string, M>()
  let other: M | undefined
  return (key: string, attributes: () => Attributes): M => {
    const known = made.get(key)
    if (known !== undefined) return known
    if (made.size >= MAX_SERIES) {
      return other ??= make(Object.fromEntries(Object.keys(attributes()).map((name) => [name, "other"])))
    }
    const series = make(attributes())
    made.set(key, series)
    return series
  }
}

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
      const requests = seriesOf((attributes) =>
        Metric.counter("gateway_requests_total", { description: "Requests answered, by route and status", attributes })
      )
      const durations = seriesOf((attributes) =>
        Metric.histogram("gen_ai_client_operation_duration_seconds", {
          description: "GenAI operation duration",
          boundaries: durationBoundaries,
          attributes
        })
      )
      const tokens = seriesOf((attributes) =>
        Metric.histogram("gen_ai_client_token_usage", {
          description: "Tokens used per GenAI operation, by token type",
          boundaries: tokenBoundaries,
          attributes
        })
      )
      const firstTokens = seriesOf((attributes) =>
        Metric.histogram("gen_ai_server_time_to_first_token_seconds", {
          description: "Time to the first chunk of a streamed answer",
          boundaries: durationBoundaries,
          attributes
        })
      )
      const cacheLookups = seriesOf((attributes) =>
        Metric.counter("gateway_cache_lookups_total", { description: "Cache lookups, by status", attributes })
      )
      const retries = seriesOf((attributes) =>
        Metric.counter("gateway_retries_total", { description: "Retries made, by provider", attributes })
      )
      const costs = seriesOf((attributes) =>
        Metric.counter("gateway_cost_usd_total", {
          description: "US dollars spent at the model catalog's prices, by provider and model",
          attributes
        })
      )
      const circuits = seriesOf((attributes) =>
        Metric.gauge("gateway_circuit_state", {
          description: "Each target's circuit as last read: 0 closed, 1 half open, 2 open",
          attributes
        })
      )
      const operationKey = (operation: Operation) => `${operation.operation}\n${operation.provider}\n${operation.model}`
      const operationAttributes = (operation: Operation) => (): Attributes => ({
        gen_ai_operation_name: operation.operation,
        gen_ai_provider_name: operation.provider,
        gen_ai_request_model: operation.model
      })
      const tokenSeries = (operation: Operation, type: "input" | "output") =>
        tokens(`${operationKey(operation)}\n${type}`, () => ({
          ...operationAttributes(operation)(),
          gen_ai_token_type: type
        }))
      return GatewayMetrics.of({
        request: (route, status) =>
          requests(`${route} ${status}`, () => ({ route, status: String(status) })).updateUnsafe(1, context),
        operation: (operation, seconds) =>
          durations(operationKey(operation), operationAttributes(operation)).updateUnsafe(seconds, context),
        tokens: (operation, usage) => {
          tokenSeries(operation, "input").updateUnsafe(usage.inputTokens, context)
          tokenSeries(operation, "output").updateUnsafe(usage.outputTokens, context)
        },
        firstToken: (operation, seconds) =>
          firstTokens(operationKey(operation), operationAttributes(operation)).updateUnsafe(seconds, context),
        cacheLookup: (status) => cacheLookups(status, () => ({ status })).updateUnsafe(1, context),
        retries: (provider, count) => {
          if (count > 0) retries(provider, () => ({ provider })).updateUnsafe(count, context)
        },
        cost: (provider, model, usd) =>
          costs(`${provider}\n${model}`, () => ({ gen_ai_provider_name: provider, gen_ai_request_model: model }))
            .updateUnsafe(usd, context),
        circuitState: (circuit, state) =>
          circuits(
            `${circuit.provider}\n${circuit.host}\n${circuit.model}\n${circuit.credentialId}`,
            () => ({
              provider: circuit.provider,
              host: circuit.host,
              model: circuit.model,
              credential_id: circuit.credentialId
            })
          ).updateUnsafe(circuitValues[state], context)
      })
    })
  )
}
