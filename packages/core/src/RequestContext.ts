/**
 * Per-request facts every middleware may read: tracing ids, caller metadata and the principal.
 */
import { JsonLimits } from "@switchyard/protocol"
import { Clock, Effect } from "effect"
import { InvalidRequest } from "./GatewayError.ts"
import type { Principal } from "./Principal.ts"
import * as RandomBytes from "./RandomBytes.ts"
import type { RequestNotes } from "./RequestNotes.ts"

export interface RequestContext {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly spanName: string | undefined
  /** `x-gateway-metadata`: string values, at most 16 keys; `_user` names the end user. */
  readonly metadata: Readonly<Record<string, string>>
  readonly principal: Principal
  /** Incoming request headers, lower-case names, for `forward_headers`. */
  readonly headers: Readonly<Record<string, string>>
  /** Epoch milliseconds at which the gateway received the request. */
  readonly receivedAt: number
  /**
   * What the stages note for the request's record (hook results), read by whoever records it;
   * `make` always sets one, a context built by hand may have none (then nothing is noted).
   */
  readonly notes?: RequestNotes | undefined
}

/** Header names the gateway reads; kept together so a reader sees the whole surface. */
export const Headers = {
  traceId: "x-gateway-trace-id",
  spanId: "x-gateway-span-id",
  parentSpanId: "x-gateway-parent-span-id",
  spanName: "x-gateway-span-name",
  metadata: "x-gateway-metadata",
  config: "x-gateway-config",
  provider: "x-gateway-provider",
  virtualKey: "x-gateway-virtual-key",
  customHost: "x-gateway-custom-host",
  apiKey: "x-gateway-api-key",
  forwardHeaders: "x-gateway-forward-headers",
  requestTimeout: "x-gateway-request-timeout",
  strictVendorCompliance: "x-gateway-strict-vendor-compliance"
} as const

const MAX_METADATA_KEYS = 16
const MAX_METADATA_KEY_LENGTH = 64
const MAX_METADATA_VALUE_LENGTH = 512
const EMPTY: Readonly<Record<string, string>> = Object.freeze({})

const invalidMetadata = (rule: string) =>
  new InvalidRequest({ message: `${Headers.metadata}: ${rule}`, param: Headers.metadata })

/** Parses and checks `x-gateway-metadata`: a JSON object of at most 16 string values. */
export const parseMetadata = (
  raw: string | undefined
): Effect.Effect<Readonly<Record<string, string>>, InvalidRequest> => {
  if (raw === undefined || raw === "") return Effect.succeed(EMPTY)
  if (JsonLimits.exceedsDepth(raw)) return Effect.fail(invalidMetadata(JsonLimits.depthRule))
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return Effect.fail(invalidMetadata("must be a JSON object"))
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Effect.fail(invalidMetadata("must be a JSON object"))
  }
  const entries = Object.entries(parsed)
  if (entries.length > MAX_METADATA_KEYS) {
    return Effect.fail(invalidMetadata(`at most ${MAX_METADATA_KEYS} keys (got ${entries.length})`))
  }
  // no prototype: a "__proto__" key is kept as data, not swallowed by the assignment below
  const metadata: Record<string, string> = Object.create(null)
  for (const [key, value] of entries) {
    if (key.length > MAX_METADATA_KEY_LENGTH) {
      return Effect.fail(
        invalidMetadata(`key "${key.slice(0, 20)}…" is longer than ${MAX_METADATA_KEY_LENGTH} characters`)
      )
    }
    if (typeof value !== "string") {
      return Effect.fail(invalidMetadata(`value of "${key}" must be a string`))
    }
    if (value.length > MAX_METADATA_VALUE_LENGTH) {
      return Effect.fail(invalidMetadata(`value of "${key}" is longer than ${MAX_METADATA_VALUE_LENGTH} characters`))
    }
    metadata[key] = value
  }
  return Effect.succeed(metadata)
}

/**
 * A 128-bit id in hex, the shape W3C trace ids use, time-ordered (`RandomBytes.timeOrderedHex`):
 * the request log's index on trace ids grows at its end.
 */
export const generateTraceId = (): string => RandomBytes.timeOrderedHex()

/** A 64-bit random id in hex, the shape W3C span ids use. */
export const generateSpanId = (): string => RandomBytes.hex(8)

/** The caller's trace id, or a new one: known before anything else can fail. */
export const traceIdOf = (headers: Readonly<Record<string, string>>): string =>
  nonEmpty(headers[Headers.traceId]) ?? generateTraceId()

/** Builds the context of one request from its headers and the authenticated principal. */
export const make = (options: {
  readonly traceId: string
  readonly headers: Readonly<Record<string, string>>
  readonly principal: Principal
  readonly receivedAt: number
  /** The recorder's own object (the edge passes its access notes); a new one otherwise. */
  readonly notes?: RequestNotes | undefined
}): Effect.Effect<RequestContext, InvalidRequest> =>
  Effect.map(parseMetadata(options.headers[Headers.metadata]), (metadata) => ({
    traceId: options.traceId,
    spanId: nonEmpty(options.headers[Headers.spanId]) ?? generateSpanId(),
    parentSpanId: nonEmpty(options.headers[Headers.parentSpanId]),
    spanName: nonEmpty(options.headers[Headers.spanName]),
    metadata,
    principal: options.principal,
    headers: options.headers,
    receivedAt: options.receivedAt,
    notes: options.notes ?? {}
  }))

/**
 * The context of a call made in process rather than over HTTP: a new trace id (unless the headers
 * carry one), the time from Effect's clock, and the headers the gateway reads (selection, metadata)
 * as an HTTP caller would send them.
 *
 * @example
 * import { Principal, RequestContext } from "@switchyard/core"
 * const context = RequestContext.inProcess({
 *   principal: Principal.make({ keyId: "billing-service", workspaceId: "default", scopes: ["completions"] }),
 *   headers: { "x-gateway-config": JSON.stringify(config) }
 * })
 */
export const inProcess = (options: {
  readonly principal: Principal
  readonly headers?: Readonly<Record<string, string>> | undefined
}): Effect.Effect<RequestContext, InvalidRequest> => {
  const headers = options.headers ?? {}
  return Effect.flatMap(
    Clock.currentTimeMillis,
    (receivedAt) => make({ traceId: traceIdOf(headers), headers, principal: options.principal, receivedAt })
  )
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.length === 0 ? undefined : value
