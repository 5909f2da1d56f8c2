/**
 * A span recorder behind effect's `Tracer` interface whose ended spans are exported as OTLP/JSON
 * through a bounded batch queue (`internal/SpanExporter`: OpenTelemetry's queue size, batch size
 * and schedule delay, retries, the flush at shutdown and on effect's `OtlpExporter.Flusher`).
 *
 * Why not effect's `OtlpTracer` for OTLP/JSON: measured in one process on the chat path's spans
 * (the request span and one attempt), it cost about 80 µs of CPU a request against a budget of
 * 8 µs (README, "Traces"). Its span keeps attributes in a `Map`, turns each ended span into a tree of
 * small objects (one `{ key, value: { stringValue } }` per attribute), holds them until the batch
 * is sent, then `JSON.stringify` walks the whole batch at once. Here an ended span is written as
 * compact bytes into its batch's buffer (`internal/SpanRecords`), and the span thread writes the
 * batch's OTLP/JSON and sends it (`internal/SpanSender`): on the event loop nothing else is kept.
 * OTLP/protobuf keeps effect's `OtlpTracer`.
 */
import { Cause, type Context, type Duration, Effect, Exit, Option, type Scope, Tracer } from "effect"
import { Hex } from "effect/encoding"
import { type OtlpExporter, OtlpResource } from "effect/observability"
import * as SpanExporter from "./internal/SpanExporter.ts"
import { type AttributeLayout, isPlainValue, SpanRecords } from "./internal/SpanRecords.ts"

export interface Options {
  readonly url: string
  readonly resource: { readonly serviceName: string | undefined }
  readonly headers: Readonly<Record<string, string>>
  readonly compression: "gzip" | "none"
  readonly exportInterval: Duration.Duration
  readonly maxBatchSize: number
  /** Spans that wait for export at most; past it new ones are dropped and counted. */
  readonly maxQueueSize: number
  readonly shutdownTimeout: Duration.Duration
  /** One export's limit; past it the export fails as a collector that is down does. */
  readonly timeoutMs: number
}

/** OTLP/JSON writes NaN and Infinity as strings, where JSON.stringify would write null. */
const nonFiniteToString = (_key: string, value: unknown) =>
  typeof value === "number" && !Number.isFinite(value) ? String(value) : value

/** One attribute's `AnyValue` as effect converts it, for the kinds the span thread does not write itself. */
const valueJson = (value: unknown): string =>
  JSON.stringify(OtlpResource.unknownToAttributeValue(value), nonFiniteToString)

const interrupted = `{"key":"effect.fiber.interrupted","value":{"boolValue":true}}`

const attributesJson = (entries: Iterable<readonly [string, unknown]>): string => {
  let json = ""
  for (const [key, value] of entries) {
    json += `${json === "" ? "" : ","}{"key":${JSON.stringify(key)},"value":${valueJson(value)}}`
  }
  return json
}

const eventJson = (name: string, time: bigint, attributes: Iterable<readonly [string, unknown]>): string =>
  `{"name":${JSON.stringify(name)},"timeUnixNano":"${time}","attributes":[${attributesJson(attributes)}]}`

/** A span's attributes set by key while it has none yet: never written to (`attribute` replaces them). */
const noKeys: Array<string> = []
const noValues: Array<unknown> = []

type Event = readonly [name: string, time: bigint, attributes: Record<string, unknown> | undefined]

/**
 * A span recorded until it ends, then pushed to the exporter when sampled, which has it write
 * itself into a batch. Its attributes are two arrays rather than a `Map` (a span has a dozen at
 * most, and they are written once, in order), and the values of a layout, by position (the
 * request's and the attempts' spans: `Tracing.setAttributes`).
 */
class RecordedSpan implements Tracer.Span, SpanExporter.Span {
  readonly _tag = "Span"
  readonly name: string
  readonly parent: Option.Option<Tracer.AnySpan>
  readonly annotations: Context.Context<never>
  readonly links: Array<Tracer.SpanLink>
  readonly kind: Tracer.SpanKind
  readonly sampled: boolean
  readonly traceId: string
  readonly spanId: string = Hex.random(16)
  status: Tracer.SpanStatus
  // none until the first attribute set by key: the request's and the attempts' spans set theirs
  // by position, and these were two arrays a span for nothing
  private keys: Array<string> = noKeys
  private values: Array<unknown> = noValues
  private events: Array<Event> | undefined = undefined
  private layout: AttributeLayout | undefined = undefined
  private laid: ReadonlyArray<unknown> | undefined = undefined
  private readonly exporter: Exporter

  constructor(options: Parameters<Tracer.Tracer["span"]>[0], exporter: Exporter) {
    this.name = options.name
    this.parent = options.parent
    this.annotations = options.annotations
    this.links = options.links
    this.kind = options.kind
    this.sampled = options.sampled
    this.exporter = exporter
    this.traceId = Option.isSome(options.parent) ? options.parent.value.traceId : Hex.random(32)
    this.status = { _tag: "Started", startTime: options.startTime }
  }

  /** The attributes as effect's spans keep them (for a reader; the span itself never uses it). */
  get attributes(): ReadonlyMap<string, unknown> {
    const attributes = new Map<string, unknown>()
    this.layout?.keys.forEach((key, i) => {
      if (this.laid?.[i] !== undefined) attributes.set(key, this.laid[i])
    })
    this.keys.forEach((key, i) => attributes.set(key, this.values[i]))
    return attributes
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    if (!this.sampled) return
    this.exporter.push(this)
    // written into its batch: what it held goes. A span outlives its request when something
    // still refers to it (an old-generation object V8 has not yet found dead), and its exit (an
    // attempt's is the upstream answer) would be kept and promoted with it
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit: Exit.void }
    this.keys = noKeys
    this.values = noValues
    this.events = undefined
    this.laid = undefined
  }

  /**
   * The values of `layout`'s keys, by position (undefined ones are left out), in place of those
   * it was given before; they are written as they are, with no key looked up.
   */
  laidOut(layout: AttributeLayout, values: ReadonlyArray<unknown>): void {
    if (this.status._tag !== "Started") return
    const before = this.layout
    const laidBefore = this.laid
    if (before !== undefined && before !== layout && laidBefore !== undefined) {
      // a second layout: the first one's values become attributes set by key
      this.layout = undefined
      this.laid = undefined
      before.keys.forEach((key, i) => {
        if (laidBefore[i] !== undefined) this.attribute(key, laidBefore[i])
      })
    }
    this.layout = layout
    this.laid = values
    // a key set before, and now by position: the value set last is the one kept
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const at = layout.keys.indexOf(this.keys[i] ?? "")
      if (at !== -1 && values[at] !== undefined) {
        this.keys.splice(i, 1)
        this.values.splice(i, 1)
      }
    }
  }

  attribute(key: string, value: unknown): void {
    if (this.status._tag !== "Started") return
    const laidAt = this.layout === undefined ? -1 : this.layout.keys.indexOf(key)
    if (laidAt !== -1 && this.laid !== undefined) {
      // a key of the layout keeps its place among the layout's values
      const laid = [...this.laid]
      laid[laidAt] = value
      this.laid = laid
      return
    }
    const at = this.keys.indexOf(key)
    if (at === -1) {
      if (this.keys === noKeys) {
        this.keys = []
        this.values = []
      }
      this.keys.push(key)
      this.values.push(value)
    } else {
      this.values[at] = value
    }
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    if (this.status._tag === "Started") (this.events ??= []).push([name, startTime, attributes])
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    // oxlint-disable-next-line no-restricted-syntax
    if (this.status._tag === "Started") this.links.push(...links)
  }

  /** The ended span, as effect's `OtlpTracer` would write it, added to `records`. */
  recordTo(records: SpanRecords): void {
    if (this.status._tag !== "Ended") return
    const { endTime, exit, startTime } = this.status
    records.string(this.traceId)
    records.string(this.spanId)
    records.string(Option.isSome(this.parent) ? this.parent.value.spanId : "")
    records.text(this.name)
    records.kind(this.kind)
    records.time(startTime)
    records.time(endTime)
    const laid = this.layout === undefined || this.laid === undefined ? 0 : SpanRecords.definedCount(this.laid)
    records.count32(laid + this.keys.length)
    if (laid > 0 && this.layout !== undefined && this.laid !== undefined) {
      records.laidOut(this.layout, this.laid, valueJson)
    }
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i] ?? ""
      const value = this.values[i]
      if (isPlainValue(value)) records.attribute(key, value)
      else records.jsonAttribute(key, valueJson(value))
    }
    const plain = exit._tag === "Success" && this.events === undefined && this.links.length === 0
    records.tail(plain ? undefined : this.tail(endTime, exit, laid + this.keys.length))
  }

  /** What closes a span that failed, was interrupted, or has events or links: rare, so as text. */
  private tail(endTime: bigint, exit: Exit.Exit<unknown, unknown>, attributes: number): string {
    const events: Array<string> = []
    for (const [name, time, eventAttributes] of this.events ?? []) {
      events.push(eventJson(name, time, Object.entries(eventAttributes ?? {})))
    }
    let attribute = ""
    let status = `{"code":1}`
    if (exit._tag === "Failure") {
      if (Cause.hasInterruptsOnly(exit.cause)) {
        status = `{"code":0}`
        attribute = (attributes > 0 ? "," : "") + interrupted
      } else {
        const errors = Cause.prettyErrors(exit.cause, { includeCauseInStack: true })
        if (errors[0] !== undefined) status = `{"code":2,"message":${JSON.stringify(errors[0].message)}}`
        for (const error of errors) {
          events.push(eventJson("exception", endTime, [
            ["exception.type", error.name],
            ["exception.message", error.message],
            ["exception.stacktrace", error.stack ?? "No stack trace available"]
          ]))
        }
      }
    }
    const links = this.links.map((link) =>
      `{"traceId":"${link.span.traceId.padStart(32, "0")}","spanId":"${link.span.spanId}","attributes":[${
        attributesJson(Object.entries(link.attributes))
      }]}`
    )
    // OTLP/JSON leaves out fields at their default (no events, no links, nothing dropped)
    return `${attribute}],"status":${status}${events.length === 0 ? "" : `,"events":[${events.join(",")}]`}${
      links.length === 0 ? "" : `,"links":[${links.join(",")}]`
    }}`
  }
}

type Exporter = { readonly push: (span: SpanExporter.Span) => void }

/**
 * A tracer whose sampled spans are exported as OTLP/JSON to `options.url` in batches from a
 * bounded queue (`OTEL_RESOURCE_ATTRIBUTES` adds to the resource, as with effect's `OtlpTracer`).
 */
export const make = (
  options: Options
): Effect.Effect<Tracer.Tracer, never, OtlpExporter.Flusher | Scope.Scope> =>
  Effect.gen(function*() {
    const resource = yield* OtlpResource.fromConfig(options.resource)
    const scope = { name: "@switchyard/observability" }
    const exporter = yield* SpanExporter.make({
      url: options.url,
      headers: options.headers,
      compression: options.compression,
      scheduleDelay: options.exportInterval,
      maxBatchSize: options.maxBatchSize,
      maxQueueSize: options.maxQueueSize,
      head: `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${
        JSON.stringify(scope)
      },"spans":[`,
      tail: "]}]}]}",
      shutdownTimeout: options.shutdownTimeout,
      timeoutMs: options.timeoutMs
    })
    return Tracer.make({
      span: (span) => new RecordedSpan(span, exporter)
    })
  })
