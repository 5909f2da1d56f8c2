/**
 * A fake OpenTelemetry collector on 127.0.0.1: accepts OTLP/HTTP traces (`POST /v1/traces`) in
 * JSON or protobuf and keeps the spans, or answers slowly (never), to show that a collector that
 * misbehaves costs the gateway's requests nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Span {
  readonly traceId: string
  readonly spanId: string
  /** Empty for a root span. */
  readonly parentSpanId: string
  readonly name: string
  /** OTLP's numbers: 2 server, 3 client. */
  readonly kind: number
  readonly startTimeUnixNano: bigint
  readonly endTimeUnixNano: bigint
  readonly attributes: Readonly<Record<string, string | number | boolean>>
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  readonly status: number
  /** The resource's `service.name`. */
  readonly serviceName: string
}

export interface FakeCollector {
  readonly url: string
  readonly spans: Array<Span>
  /** The content types of the exports received. */
  readonly contentTypes: Array<string>
  /** The headers of the last export. */
  readonly lastHeaders: () => IncomingMessage["headers"] | undefined
  /** Exports held open (mode `"never"`), not answered. */
  readonly held: () => number
  /** `"never"`: exports are held open and never answered. */
  mode: "ok" | "never"
  /** Resolves once a span matching `match` has arrived. */
  readonly waitFor: (match: (span: Span) => boolean, timeoutMs?: number) => Promise<Span>
  readonly close: () => Promise<void>
}

export const start = async (): Promise<FakeCollector> => {
  const spans: Array<Span> = []
  const contentTypes: Array<string> = []
  const held: Array<ServerResponse> = []
  let lastHeaders: IncomingMessage["headers"] | undefined
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (collector.mode === "never") return void held.push(response)
      const body = Buffer.concat(chunks)
      const contentType = request.headers["content-type"] ?? ""
      contentTypes.push(contentType)
      lastHeaders = request.headers
      spans.push(...(contentType.includes("protobuf") ? fromProtobuf(body) : fromJson(JSON.parse(body.toString()))))
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const collector: FakeCollector = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    lastHeaders: () => lastHeaders,
    held: () => held.length,
    mode: "ok",
    waitFor: async (match, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const found = spans.find(match)
        if (found !== undefined) return found
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error(`no such span in ${spans.length}: ${spans.map((span) => span.name).join(", ")}`)
    },
    close: () =>
      new Promise((resolve) => {
        for (const response of held) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return collector
}

// OTLP/JSON ------------------------------------------------------------------------------------

interface JsonValue {
  readonly stringValue?: string
  readonly intValue?: string | number
  readonly doubleValue?: number
  readonly boolValue?: boolean
}
interface JsonKeyValue {
  readonly key: string
  readonly value: JsonValue
}
interface JsonSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly startTimeUnixNano: string
  readonly endTimeUnixNano: string
  readonly attributes: ReadonlyArray<JsonKeyValue>
  readonly status?: { readonly code?: number }
}
interface JsonTraces {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<JsonKeyValue> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<JsonSpan> }>
  }>
}

const jsonValue = (value: JsonValue): string | number | boolean =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ??
    value.boolValue ?? ""

const jsonAttributes = (list: ReadonlyArray<JsonKeyValue>) =>
  Object.fromEntries(list.map((entry) => [entry.key, jsonValue(entry.value)]))

const fromJson = (data: JsonTraces): Array<Span> =>
  data.resourceSpans.flatMap((resourceSpans) => {
    const serviceName = String(jsonAttributes(resourceSpans.resource.attributes)["service.name"] ?? "")
    return resourceSpans.scopeSpans.flatMap((scope) =>
      scope.spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? "",
        name: span.name,
        kind: span.kind,
        startTimeUnixNano: BigInt(span.startTimeUnixNano),
        endTimeUnixNano: BigInt(span.endTimeUnixNano),
        attributes: jsonAttributes(span.attributes),
        status: span.status?.code ?? 0,
        serviceName
      }))
    )
  })

// OTLP/protobuf: just enough of the wire format to read TracesData ------------------------------

type Field = { readonly number: number; readonly varint?: bigint; readonly bytes?: Uint8Array }

const fields = (bytes: Uint8Array): Array<Field> => {
  const out: Array<Field> = []
  let at = 0
  const varint = () => {
    let value = 0n
    let shift = 0n
    for (;;) {
      const byte = bytes[at++] ?? 0
      value |= BigInt(byte & 0x7f) << shift
      shift += 7n
      if ((byte & 0x80) === 0) return value
    }
  }
  while (at < bytes.length) {
    const key = Number(varint())
    const number = key >>> 3
    const wire = key & 7
    if (wire === 0) out.push({ number, varint: varint() })
    else if (wire === 2) {
      const length = Number(varint())
      out.push({ number, bytes: bytes.subarray(at, at + length) })
      at += length
    } else if (wire === 1) {
      out.push({ number, varint: new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true) })
      at += 8
    } else if (wire === 5) at += 4
    else throw new Error(`unexpected wire type ${wire}`)
  }
  return out
}

const sub = (list: Array<Field>, number: number) => list.filter((field) => field.number === number)
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString("hex")
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString()

const anyValue = (bytes: Uint8Array): string | number | boolean => {
  const [field] = fields(bytes)
  if (field === undefined) return ""
  if (field.number === 1) return text(field.bytes)
  if (field.number === 2) return field.varint === 1n
  if (field.number === 3) return Number(BigInt.asIntN(64, field.varint ?? 0n))
  if (field.number === 4) return new DataView(new BigUint64Array([field.varint ?? 0n]).buffer).getFloat64(0, true)
  return ""
}

const protoAttributes = (list: Array<Field>) =>
  Object.fromEntries(list.map((field) => {
    const entry = fields(field.bytes ?? new Uint8Array())
    return [text(sub(entry, 1)[0]?.bytes), anyValue(sub(entry, 2)[0]?.bytes ?? new Uint8Array())]
  }))

const fromProtobuf = (body: Uint8Array): Array<Span> =>
  sub(fields(body), 1).flatMap((resourceSpans) => {
    const resourceFields = fields(resourceSpans.bytes ?? new Uint8Array())
    const resource = fields(sub(resourceFields, 1)[0]?.bytes ?? new Uint8Array())
    const serviceName = String(protoAttributes(sub(resource, 1))["service.name"] ?? "")
    return sub(resourceFields, 2).flatMap((scopeSpans) =>
      sub(fields(scopeSpans.bytes ?? new Uint8Array()), 2).map((encoded) => {
        const span = fields(encoded.bytes ?? new Uint8Array())
        const status = fields(sub(span, 15)[0]?.bytes ?? new Uint8Array())
        return {
          traceId: hex(sub(span, 1)[0]?.bytes),
          spanId: hex(sub(span, 2)[0]?.bytes),
          parentSpanId: hex(sub(span, 4)[0]?.bytes),
          name: text(sub(span, 5)[0]?.bytes),
          kind: Number(sub(span, 6)[0]?.varint ?? 0n),
          startTimeUnixNano: sub(span, 7)[0]?.varint ?? 0n,
          endTimeUnixNano: sub(span, 8)[0]?.varint ?? 0n,
          attributes: protoAttributes(sub(span, 9)),
          status: Number(sub(status, 3)[0]?.varint ?? 0n),
          serviceName
        }
      })
    )
  })
