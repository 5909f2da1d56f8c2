/**
 * A span recorder that writes each span as OTLP/JSON when it ends, behind effect's `Tracer`
 * interface, exporting through a bounded batch queue (`internal/SpanExporter`: OpenTelemetry's
 * queue size, batch size and schedule delay, retries, the flush at shutdown and on effect's
 * `OtlpExporter.Flusher`).
 *
 * Why not effect's `OtlpTracer` for OTLP/JSON: measured in one process on the chat path's spans
 * (the request span and one attempt), it cost about 80 µs of CPU a request against a budget of
 * 8 µs (README, "Traces"). Its span keeps attributes in a `Map`, turns each ended span into a tree of
 * small objects (one `{ key, value: { stringValue } }` per attribute), holds them until the batch
 * is sent, then `JSON.stringify` walks the whole batch at once. Here an ended span is written
 * straight from its fields as bytes into its batch's request body (`internal/JsonBytes`): nothing
 * else is kept. OTLP/protobuf keeps effect's `OtlpTracer`.
 */
import { Cause, type Context, type Duration, Effect, type Exit, Option, type Scope, Tracer } from "effect"
import { Hex } from "effect/encoding"
import { HttpBody, type HttpClient } from "effect/http"
import { type OtlpExporter, OtlpResource } from "effect/observability"
import { fragment, type JsonBytes } from "./internal/JsonBytes.ts"
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

/** OTLP/JSON writes NaN and Infinity as strings, where JSON.stringify would write null. */
const nonFiniteToString = (_key: string, value: unknown) =>
  typeof value === "number" && !Number.isFinite(value) ? String(value) : value

/** One attribute's `AnyValue` as effect converts it, for the kinds `writeAttribute` does not write itself. */
const valueJson = (value: unknown): string =>
  JSON.stringify(OtlpResource.unknownToAttributeValue(value), nonFiniteToString)

/** OTLP's `Span.SpanKind` numbers, each with the fields around it. */
const kindThenStart: Record<Tracer.SpanKind, Uint8Array> = {
  internal: fragment(`","kind":1,"startTimeUnixNano":"`),
  server: fragment(`","kind":2,"startTimeUnixNano":"`),
  client: fragment(`","kind":3,"startTimeUnixNano":"`),
  producer: fragment(`","kind":4,"startTimeUnixNano":"`),
  consumer: fragment(`","kind":5,"startTimeUnixNano":"`)
}
const traceIdStart = fragment(`{"traceId":"`)
const spanIdStart = fragment(`","spanId":"`)
const parentSpanIdStart = fragment(`","parentSpanId":"`)
const nameStart = fragment(`","name":"`)
const endTimeStart = fragment(`","endTimeUnixNano":"`)
const attributesStart = fragment(`","attributes":[`)
const statusStart = fragment(`],"status":`)
const statusOk = fragment(`{"code":1}`)
const stringValueEnd = fragment(`"}}`)
const intValueEnd = fragment(`}}`)
const trueValue = fragment(`{"boolValue":true}}`)
const falseValue = fragment(`{"boolValue":false}}`)
const interrupted = fragment(`{"key":"effect.fiber.interrupted","value":{"boolValue":true}}`)
const COMMA = 0x2c
const CLOSE = 0x7d

/** Values remembered per attribute name, at most; more are written each time. */
const MAX_VALUES = 64
/** Longer values are written each time, never remembered. */
const MAX_VALUE_LENGTH = 256

/**
 * Per attribute name (the names are few and the same on every span): `{"key":…,"value":`, alone
 * and with the start of a string value and of an integer one (one copy for both, not two); and
 * the whole attribute for each value seen twice, as most repeat from request to request (the
 * route, the provider, the model, the status): a value seen before is then one copy, rather than
 * written a character at a time. A value never repeated (a trace id, a token count) is written.
 */
class KeyBytes {
  readonly key: Uint8Array
  readonly stringKey: Uint8Array
  readonly intKey: Uint8Array
  private readonly start: string
  /** A value seen once maps to `null`; seen again, to its whole attribute's bytes. */
  private readonly values = new Map<string | number, Uint8Array | null>()

  constructor(key: string) {
    this.start = `{"key":${JSON.stringify(key)},"value":`
    this.key = fragment(this.start)
    this.stringKey = fragment(`${this.start}{"stringValue":"`)
    this.intKey = fragment(`${this.start}{"intValue":`)
  }

  /** The attribute with `value` (a string, or a safe integer) as bytes, if seen before. */
  repeated(value: string | number): Uint8Array | undefined {
    const bytes = this.values.get(value)
    if (bytes !== undefined && bytes !== null) return bytes
    if (bytes === null) {
      const whole = fragment(
        `${this.start}${
          typeof value === "string" ? `{"stringValue":${JSON.stringify(value)}` : `{"intValue":${value}`
        }}}`
      )
      this.values.set(value, whole)
      return whole
    }
    const remembered = typeof value === "number" || value.length <= MAX_VALUE_LENGTH
    if (remembered && this.values.size < MAX_VALUES) this.values.set(value, null)
    return undefined
  }
}
const keys = new Map<string, KeyBytes>()
const keyBytes = (key: string): KeyBytes => {
  let bytes = keys.get(key)
  if (bytes === undefined) {
    bytes = new KeyBytes(key)
    // bounded: a name made per request (none of ours is) is written, not remembered
    if (keys.size < 1_000) keys.set(key, bytes)
  }
  return bytes
}

/** One attribute, `{"key":…,"value":…}`: the common kinds written directly. */
const writeAttribute = (out: JsonBytes, key: string, value: unknown): void => {
  const bytes = keyBytes(key)
  if (typeof value === "string") {
    const whole = bytes.repeated(value)
    if (whole !== undefined) return out.raw(whole)
    out.raw(bytes.stringKey)
    out.chars(value)
    out.raw(stringValueEnd)
  } else if (typeof value === "number" && Number.isSafeInteger(value)) {
    const whole = bytes.repeated(value)
    if (whole !== undefined) return out.raw(whole)
    out.raw(bytes.intKey)
    out.ascii(String(value))
    out.raw(intValueEnd)
  } else if (typeof value === "boolean") {
    out.raw(bytes.key)
    out.raw(value ? trueValue : falseValue)
  } else {
    out.raw(bytes.key)
    out.json(valueJson(value))
    out.byte(CLOSE)
  }
}

const attributesJson = (entries: Iterable<readonly [string, unknown]>): string => {
  let json = ""
  for (const [key, value] of entries) {
    json += `${json === "" ? "" : ","}{"key":${JSON.stringify(key)},"value":${valueJson(value)}}`
  }
  return json
}

const eventJson = (name: string, time: bigint, attributes: Iterable<readonly [string, unknown]>): string =>
  `{"name":${JSON.stringify(name)},"timeUnixNano":"${time}","attributes":[${attributesJson(attributes)}]}`

type Event = readonly [name: string, time: bigint, attributes: Record<string, unknown> | undefined]

/**
 * A span recorded until it ends, then pushed to the exporter when sampled, which has it write
 * itself into a batch. Its attributes are two arrays rather than a `Map` (a span has a dozen at
 * most, and they are written once, in order).
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
  private readonly keys: Array<string> = []
  private readonly values: Array<unknown> = []
  private events: Array<Event> | undefined = undefined
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
    return new Map(this.keys.map((key, i) => [key, this.values[i]]))
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    if (this.sampled) this.exporter.push(this)
  }

  attribute(key: string, value: unknown): void {
    if (this.status._tag !== "Started") return
    const at = this.keys.indexOf(key)
    if (at === -1) {
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

  /** The ended span as effect's `OtlpTracer` writes it: status, exceptions and interruption alike. */
  writeTo(out: JsonBytes): void {
    if (this.status._tag !== "Ended") return
    const { endTime, exit, startTime } = this.status
    out.raw(traceIdStart)
    out.chars(this.traceId.padStart(32, "0"))
    out.raw(spanIdStart)
    out.chars(this.spanId)
    if (Option.isSome(this.parent)) {
      out.raw(parentSpanIdStart)
      out.chars(this.parent.value.spanId)
    }
    out.raw(nameStart)
    out.chars(this.name)
    out.raw(kindThenStart[this.kind])
    out.ascii(String(startTime))
    out.raw(endTimeStart)
    out.ascii(String(endTime))
    out.raw(attributesStart)
    for (let i = 0; i < this.keys.length; i++) {
      if (i > 0) out.byte(COMMA)
      writeAttribute(out, this.keys[i] ?? "", this.values[i])
    }
    if (exit._tag === "Success" && this.events === undefined && this.links.length === 0) {
      out.raw(statusStart)
      out.raw(statusOk)
      return out.byte(CLOSE)
    }
    this.writeRare(out, endTime, exit)
  }

  /** The rest of a span that failed, was interrupted, or has events or links: rare, so as text. */
  private writeRare(out: JsonBytes, endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    const events: Array<string> = []
    for (const [name, time, eventAttributes] of this.events ?? []) {
      events.push(eventJson(name, time, Object.entries(eventAttributes ?? {})))
    }
    let status = `{"code":1}`
    if (exit._tag === "Failure") {
      if (Cause.hasInterruptsOnly(exit.cause)) {
        status = `{"code":0}`
        if (this.keys.length > 0) out.byte(COMMA)
        out.raw(interrupted)
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
    out.raw(statusStart)
    out.json(
      status + (events.length === 0 ? "" : `,"events":[${events.join(",")}]`) +
        (links.length === 0 ? "" : `,"links":[${links.join(",")}]`)
    )
    out.byte(CLOSE)
  }
}

type Exporter = { readonly push: (span: SpanExporter.Span) => void }

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
    const head = fragment(
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
      head,
      tail: fragment("]}]}]}"),
      body: (bytes) => HttpBody.uint8Array(bytes, "application/json"),
      shutdownTimeout: options.shutdownTimeout
    })
    return Tracer.make({
      span: (span) => new RecordedSpan(span, exporter)
    })
  })
