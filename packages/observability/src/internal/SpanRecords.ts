/**
 * Ended spans as the span thread is handed them, and the OTLP/JSON the thread writes of them.
 *
 * A batch is one flat array of values, span after span: trace id, span id, parent span id (`""`
 * for a root), name, kind, start and end time (epoch nanoseconds), the number of attributes, each
 * attribute as its key then its value, and the tail: `undefined` for a span that succeeded with no
 * events or links, else the JSON that closes it (status, events, links), made where the span ended.
 * A value other than a string, a safe integer or a boolean is written where the span ended too,
 * as `null` followed by its JSON (rare: effect's own spans with objects in their attributes).
 *
 * Why flat: a batch crosses to the thread by structured clone, which copies a flat array of
 * strings and numbers faster than as many small objects, and building it allocates nothing per
 * span but the array's growth. This module imports nothing of the gateway and no `effect`: the
 * thread loads it alone.
 */
import { fragment, type JsonBytes } from "./JsonBytes.ts"

/** Spans as flat values, in the order this module reads them. */
export type SpanRecords = Array<unknown>

/** The span kinds effect's `Tracer` names, in OTLP's `Span.SpanKind` order from 1. */
export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer"

/** Values remembered per attribute name, at most; more are written each time. */
const MAX_VALUES = 64
/** Longer values are written each time, never remembered. */
const MAX_VALUE_LENGTH = 256

/** OTLP's `Span.SpanKind` numbers, each with the fields around it. */
const kindThenStart: Record<SpanKind, Uint8Array> = {
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
const succeeded = fragment(`],"status":{"code":1}}`)
const stringValueEnd = fragment(`"}}`)
const intValueEnd = fragment(`}}`)
const trueValue = fragment(`{"boolValue":true}}`)
const falseValue = fragment(`{"boolValue":false}}`)
const COMMA = 0x2c
const CLOSE = 0x7d

/**
 * Per attribute name (the names are few and the same on every span): `{"key":…,"value":`, alone
 * and with the start of a string value and of an integer one; and the whole attribute for each
 * value seen twice, as most repeat from request to request (the route, the provider, the model,
 * the status): a value seen before is then one copy, rather than written a character at a time.
 * A value never repeated (a trace id, a token count) is written.
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

/** Whether a value is written by {@link writeSpans} itself; any other is written as its JSON first. */
export const isPlainValue = (value: unknown): value is string | number | boolean =>
  typeof value === "string" || typeof value === "boolean" || (typeof value === "number" && Number.isSafeInteger(value))

/** One attribute of a plain value, `{"key":…,"value":…}`. */
const writeAttribute = (out: JsonBytes, key: string, value: string | number | boolean): void => {
  const bytes = keyBytes(key)
  if (typeof value === "boolean") {
    out.raw(bytes.key)
    return out.raw(value ? trueValue : falseValue)
  }
  const whole = bytes.repeated(value)
  if (whole !== undefined) return out.raw(whole)
  if (typeof value === "string") {
    out.raw(bytes.stringKey)
    out.chars(value)
    out.raw(stringValueEnd)
  } else {
    out.raw(bytes.intKey)
    out.ascii(String(value))
    out.raw(intValueEnd)
  }
}

/**
 * Writes the spans of `records` as OTLP/JSON spans separated by commas (the first preceded by one
 * when `afterOthers`); gives how many it wrote.
 */
export const writeSpans = (records: SpanRecords, out: JsonBytes, afterOthers: boolean): number => {
  let spans = 0
  let at = 0
  while (at < records.length) {
    if (afterOthers || spans > 0) out.byte(COMMA)
    out.raw(traceIdStart)
    out.chars(String(records[at++]).padStart(32, "0"))
    out.raw(spanIdStart)
    out.chars(String(records[at++]))
    const parent = String(records[at++])
    if (parent !== "") {
      out.raw(parentSpanIdStart)
      out.chars(parent)
    }
    out.raw(nameStart)
    out.chars(String(records[at++]))
    out.raw(kindThenStart[records[at++] as SpanKind])
    out.ascii(String(records[at++]))
    out.raw(endTimeStart)
    out.ascii(String(records[at++]))
    out.raw(attributesStart)
    const attributes = Number(records[at++])
    for (let i = 0; i < attributes; i++) {
      if (i > 0) out.byte(COMMA)
      const key = String(records[at++])
      const value = records[at++]
      if (value === null) {
        // a value written as JSON where the span ended
        out.raw(keyBytes(key).key)
        out.json(String(records[at++]))
        out.byte(CLOSE)
      } else {
        writeAttribute(out, key, value as string | number | boolean)
      }
    }
    const tail = records[at++]
    if (tail === undefined) out.raw(succeeded)
    else out.json(String(tail))
    spans++
  }
  return spans
}
