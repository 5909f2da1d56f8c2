/**
 * A span recorder that writes each span as OTLP/JSON text when it ends, behind effect's `Tracer`
 * interface, exporting through a bounded batch queue (`internal/SpanExporter`: OpenTelemetry's
 * queue size, batch size and schedule delay, retries, the flush at shutdown and on effect's
 * `OtlpExporter.Flusher`).
 *
 * Why not effect's `OtlpTracer` for OTLP/JSON: measured in one process on the chat path's spans
 * (the request span and one attempt), it cost about 80 µs of CPU a request against a budget of
 * 8 µs (README, "Traces"). Its span keeps attributes in a `Map`, turns each ended span into a tree of
 * small objects (one `{ key, value: { stringValue } }` per attribute), holds them until the batch
 * is sent, then `JSON.stringify` walks the whole batch at once. Here an ended span is one string,
 * written straight from its fields: nothing else is kept, and the batch is joined, not walked.
 * OTLP/protobuf keeps effect's `OtlpTracer`.
 */
import { Cause, type Context, type Duration, Effect, type Exit, Option, type Scope, Tracer } from "effect"
import { Hex } from "effect/encoding"
import { HttpBody, type HttpClient } from "effect/http"
import { type OtlpExporter, OtlpResource } from "effect/observability"
import * as SpanChunks from "./internal/SpanChunks.ts"
import * as SpanExporter from "./internal/SpanExporter.ts"

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
}

/** OTLP's `Span.SpanKind` numbers. */
const kinds: Record<Tracer.SpanKind, number> = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 }

/** OTLP/JSON writes NaN and Infinity as strings, where JSON.stringify would write null. */
const nonFiniteToString = (_key: string, value: unknown) =>
  typeof value === "number" && !Number.isFinite(value) ? String(value) : value

const tail = Buffer.from("]}]}]}")

/** One attribute's `AnyValue`, the common kinds written directly, the rest as effect converts them. */
const valueJson = (value: unknown): string => {
  if (typeof value === "string") return `{"stringValue":${JSON.stringify(value)}}`
  if (typeof value === "boolean") return value ? `{"boolValue":true}` : `{"boolValue":false}`
  if (typeof value === "number" && Number.isSafeInteger(value)) return `{"intValue":${value}}`
  return JSON.stringify(OtlpResource.unknownToAttributeValue(value), nonFiniteToString)
}

/** `{"key":…,"value":` per attribute name: the names are few and the same on every span. */
const keyFragments = new Map<string, string>()
const keyFragment = (key: string): string => {
  let fragment = keyFragments.get(key)
  if (fragment === undefined) {
    fragment = `{"key":${JSON.stringify(key)},"value":`
    // bounded: a name made per request (none of ours is) is written, not remembered
    if (keyFragments.size < 1_000) keyFragments.set(key, fragment)
  }
  return fragment
}

const attributesJson = (entries: Iterable<readonly [string, unknown]>): string => {
  let json = ""
  for (const [key, value] of entries) {
    json += `${json === "" ? "" : ","}${keyFragment(key)}${valueJson(value)}}`
  }
  return json
}

const eventJson = (name: string, time: bigint, attributes: Iterable<readonly [string, unknown]>): string =>
  `{"name":${JSON.stringify(name)},"timeUnixNano":"${time}","attributes":[${attributesJson(attributes)}]}`

type Event = readonly [name: string, time: bigint, attributes: Record<string, unknown> | undefined]

/** A span recorded until it ends, then handed to `write` as its OTLP/JSON text when sampled. */
class RecordedSpan implements Tracer.Span {
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
  readonly attributes = new Map<string, unknown>()
  private events: Array<Event> | undefined = undefined
  private readonly write: (json: string) => void

  constructor(options: Parameters<Tracer.Tracer["span"]>[0], write: (json: string) => void) {
    this.name = options.name
    this.parent = options.parent
    this.annotations = options.annotations
    this.links = options.links
    this.kind = options.kind
    this.sampled = options.sampled
    this.write = write
    this.traceId = Option.isSome(options.parent) ? options.parent.value.traceId : Hex.random(32)
    this.status = { _tag: "Started", startTime: options.startTime }
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    const startTime = this.status.startTime
    this.status = { _tag: "Ended", startTime, endTime, exit }
    if (this.sampled) this.write(this.json(startTime, endTime, exit))
  }

  attribute(key: string, value: unknown): void {
    if (this.status._tag === "Started") this.attributes.set(key, value)
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    if (this.status._tag === "Started") (this.events ??= []).push([name, startTime, attributes])
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    // oxlint-disable-next-line no-restricted-syntax
    if (this.status._tag === "Started") this.links.push(...links)
  }

  /** The span as effect's `OtlpTracer` writes it: status, exceptions and interruption alike. */
  private json(startTime: bigint, endTime: bigint, exit: Exit.Exit<unknown, unknown>): string {
    let attributes = attributesJson(this.attributes)
    const events: Array<string> = []
    for (const [name, time, eventAttributes] of this.events ?? []) {
      events.push(eventJson(name, time, Object.entries(eventAttributes ?? {})))
    }
    let status = `{"code":1}`
    if (exit._tag === "Failure") {
      if (Cause.hasInterruptsOnly(exit.cause)) {
        status = `{"code":0}`
        attributes += `${attributes === "" ? "" : ","}{"key":"effect.fiber.interrupted","value":{"boolValue":true}}`
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
    const parentSpanId = Option.isSome(this.parent) ? `"parentSpanId":"${this.parent.value.spanId}",` : ""
    // OTLP/JSON leaves out fields at their default (no events, no links, nothing dropped)
    const more = (events.length === 0 ? "" : `,"events":[${events.join(",")}]`) +
      (links.length === 0 ? "" : `,"links":[${links.join(",")}]`)
    return `{"traceId":"${this.traceId.padStart(32, "0")}","spanId":"${this.spanId}",${parentSpanId}"name":${
      JSON.stringify(this.name)
    },"kind":${
      kinds[this.kind]
    },"startTimeUnixNano":"${startTime}","endTimeUnixNano":"${endTime}","attributes":[${attributes}],"status":${status}${more}}`
  }
}

/**
 * A tracer whose sampled spans are exported as OTLP/JSON to `options.url` in batches from a
 * bounded queue (`OTEL_RESOURCE_ATTRIBUTES` adds to the resource, as with effect's `OtlpTracer`).
 */
export const make = (
  options: Options
): Effect.Effect<Tracer.Tracer, never, OtlpExporter.Flusher | HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const resource = yield* OtlpResource.fromConfig(options.resource)
    const scope = { name: "@switchyard/observability" }
    const head = Buffer.from(
      `{"resourceSpans":[{"resource":${JSON.stringify(resource)},"scopeSpans":[{"scope":${
        JSON.stringify(scope)
      },"spans":[`
    )
    const exporter = yield* SpanExporter.make({
      url: options.url,
      headers: options.headers,
      compression: options.compression,
      scheduleDelay: options.exportInterval,
      maxBatchSize: options.maxBatchSize,
      maxQueueSize: options.maxQueueSize,
      body: (spans) => HttpBody.uint8Array(SpanChunks.joined(head, spans, tail), "application/json"),
      shutdownTimeout: options.shutdownTimeout
    })
    const text = SpanChunks.writer()
    const write = (json: string) => exporter.push(text(json))
    return Tracer.make({
      span: (span) => new RecordedSpan(span, write)
    })
  })
