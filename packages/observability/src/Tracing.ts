/**
 * The gateway's spans (extensions.md, "Running it", traces), on effect's own `Tracer`: whether
 * they are recorded at all, and the request span an edge starts when a request arrives and ends
 * when its exchange closes (after the last chunk of a stream), continuing the caller's W3C
 * `traceparent`. The spans inside a request (the stages' checks, each upstream attempt) are made
 * with `Effect.withSpan` under it, by the pipeline.
 *
 * Spans cost: `Effect.withSpan` makes a span object and captures a stack trace each time, even
 * with effect's default tracer, which exports nothing. So whether to make them is decided once,
 * when a pipeline or an edge is built, from {@link Enabled}: with tracing off the request path
 * runs exactly as if this module did not exist.
 */
import { Clock, Context, Exit, type Fiber, Layer, Option, Tracer } from "effect"
import type { AttributeLayout } from "./internal/SpanRecords.ts"

/**
 * On when the spans go somewhere (`OtlpTraces.layer` sets it); read when a pipeline or an edge is
 * built, never per request.
 */
export const Enabled = Context.Reference<boolean>("@switchyard/observability/Tracing/Enabled", {
  defaultValue: () => false
})

/**
 * {@link Enabled} on, alone: for what makes spans under a tracer provided elsewhere (a pipeline
 * whose requests run on an edge that has `OtlpTraces.layer`).
 */
export const layerEnabled: Layer.Layer<never> = Layer.succeed(Enabled, true)

/** Span options that skip the stack trace `withSpan` otherwise captures on every call. */
export const noStackTrace = { captureStackTrace: false } as const

const traceIdPattern = /^[0-9a-f]{32}$/
const spanIdPattern = /^[0-9a-f]{16}$/
const flagsPattern = /^[0-9a-f]{2}$/
const zeroTraceId = "0".repeat(32)
const zeroSpanId = "0".repeat(16)

/**
 * The caller's span from a W3C `traceparent` (version 00: `00-<trace id>-<span id>-<flags>`);
 * none when it is absent or malformed, as the Trace Context spec says (a new trace starts).
 */
export const parentOf = (traceparent: string | undefined): Tracer.ExternalSpan | undefined => {
  if (traceparent === undefined) return undefined
  const parts = traceparent.trim().split("-")
  if (parts.length !== 4 || parts[0] !== "00") return undefined
  const [, traceId = "", spanId = "", flags = ""] = parts
  if (!traceIdPattern.test(traceId) || !spanIdPattern.test(spanId) || !flagsPattern.test(flags)) return undefined
  if (traceId === zeroTraceId || spanId === zeroSpanId) return undefined
  return Tracer.externalSpan({ traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 })
}

/**
 * The W3C `traceparent` naming `span` as the parent of what a callee does, so a provider or a
 * proxy that traces continues the trace (the inverse of {@link parentOf}).
 */
export const traceparentOf = (span: Tracer.AnySpan): string =>
  `00-${span.traceId.padStart(32, "0")}-${span.spanId}-${span.sampled ? "01" : "00"}`

/**
 * Which requests' traces are recorded (`OTEL_TRACES_SAMPLER`): a share `ratio` of them, or, when
 * `parentBased`, what the caller's `traceparent` decided whenever it sent one. Spans of a trace
 * not sampled are made but never exported.
 */
export interface Sampler {
  readonly parentBased: boolean
  readonly ratio: number
}

/** The sampler; OpenTelemetry's default, `parentbased_always_on`, unless a layer says otherwise. */
export const Sampling = Context.Reference<Sampler>("@switchyard/observability/Tracing/Sampling", {
  defaultValue: () => ({ parentBased: true, ratio: 1 })
})

/** Whether a request's trace is recorded, given the caller's span when it sent one. */
export const isSampled = (sampler: Sampler, parent: Tracer.ExternalSpan | undefined): boolean => {
  if (parent !== undefined && sampler.parentBased) return parent.sampled
  if (sampler.ratio >= 1) return true
  if (sampler.ratio <= 0) return false
  // traceidratio decides on the trace id, so every service of a trace decides alike
  return parent === undefined
    ? Math.random() < sampler.ratio
    : parseInt(parent.traceId.slice(-8), 16) / 0x1_0000_0000 < sampler.ratio
}

/**
 * Starts a server span named `name`, the child of the caller's `traceparent` when it sent a valid
 * one (same trace id), else the root of a new trace; recorded as `sampler` decides.
 */
export const startServerSpan = (
  tracer: Tracer.Tracer,
  clock: Clock.Clock,
  sampler: Sampler,
  name: string,
  traceparent: string | undefined
): Tracer.Span => {
  const parent = parentOf(traceparent)
  return tracer.span({
    name,
    parent: Option.fromUndefinedOr(parent),
    annotations: Context.empty(),
    links: [],
    startTime: clock.currentTimeNanosUnsafe(),
    kind: "server",
    root: parent === undefined,
    sampled: isSampled(sampler, parent)
  })
}

/**
 * Starts a span under the fiber's current span (the request's), as `Effect.useSpan` would, but
 * without its machinery: the caller ends it, and provides it as the parent of what runs under it
 * only if anything must see it (the W3C `traceparent` sent upstream names an attempt's span).
 *
 * Why: each `useSpan` and `withParentSpan` changed the fiber's context twice, and each change of
 * the parent span rebuilt the fiber's cache of services; with the span's own options and
 * finalizer that was a third of tracing's CPU and garbage on the chat path (README, "Traces").
 */
export const startSpan = (fiber: Fiber.Fiber<unknown, unknown>, name: string, kind: Tracer.SpanKind): Tracer.Span => {
  const parent = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return fiber.getRef(Tracer.Tracer).span({
    name,
    parent: Option.fromUndefinedOr(parent),
    annotations: Context.empty(),
    links: [],
    startTime: fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(),
    kind,
    root: parent === undefined,
    sampled: parent?.sampled ?? true
  })
}

/**
 * The span of the upstream attempt under way, which the W3C `traceparent` sent upstream names
 * (`PipelineSpans.attempt` provides it; the upstream client reads it, else the parent span).
 *
 * Why not the parent span: nothing under an attempt makes spans, and changing the parent span
 * rebuilds the fiber's cache of services, where this key does not.
 */
export const AttemptSpan = Context.Reference<Tracer.Span | undefined>("@switchyard/observability/Tracing/AttemptSpan", {
  defaultValue: () => undefined
})

/** The span a call made now runs under: the attempt's, else the fiber's parent span. */
export const callerSpanOf = (fiber: Fiber.Fiber<unknown, unknown>): Tracer.AnySpan | undefined =>
  fiber.getRef(AttemptSpan) ?? Context.getOrUndefined(fiber.context, Tracer.ParentSpan)

/** Ends a span started by {@link startSpan} with how what it covers ended. */
export const endSpan = (
  fiber: Fiber.Fiber<unknown, unknown>,
  span: Tracer.Span,
  exit: Exit.Exit<unknown, unknown>
): void => span.end(fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(), exit)

/** A server answer at or over 500 is an error, as OpenTelemetry's HTTP conventions say; a 4xx is not. */
class ServerError extends Error {
  override readonly name = "ServerError"
}

/**
 * Attribute keys in a fixed order, for the spans that set the same ones every time: their values
 * are given by position ({@link setAttributes}), and the OTLP/JSON tracer writes them without
 * looking a key up. Make one per kind of span, once.
 */
export { AttributeLayout } from "./internal/SpanRecords.ts"

/** A span that takes a layout's values at once (the OTLP/JSON tracer's). */
interface LaidOut {
  readonly laidOut: (layout: AttributeLayout, values: ReadonlyArray<unknown>) => void
}

const takesLayouts = (span: Tracer.Span): span is Tracer.Span & LaidOut =>
  "laidOut" in span && typeof span.laidOut === "function"

/** An attribute's value, or undefined to leave it out. */
export type AttributeValue = string | number | boolean | undefined

/**
 * Sets `values` under `layout`'s keys, by position, undefined ones left out (in place of the
 * values the layout was given before): at once on the OTLP/JSON tracer's spans, one by one on
 * another tracer's.
 */
export const setAttributes = (
  span: Tracer.Span,
  layout: AttributeLayout,
  values: ReadonlyArray<AttributeValue>
): void => {
  if (takesLayouts(span)) return span.laidOut(layout, values)
  for (let i = 0; i < values.length; i++) {
    const value = values[i]
    const key = layout.keys[i]
    if (value !== undefined && key !== undefined) span.attribute(key, value)
  }
}

/**
 * Ends a span started by {@link startServerSpan} with the values of `layout`'s attributes
 * (undefined ones are left out) and the answer's status.
 */
export const endServerSpan = (
  span: Tracer.Span,
  clock: Clock.Clock,
  status: number,
  layout: AttributeLayout,
  values: ReadonlyArray<AttributeValue>
): void => {
  if (!span.sampled) return span.end(clock.currentTimeNanosUnsafe(), Exit.void)
  setAttributes(span, layout, values)
  span.end(
    clock.currentTimeNanosUnsafe(),
    status >= 500 ? Exit.fail(new ServerError(`answered ${status}`)) : Exit.void
  )
}
