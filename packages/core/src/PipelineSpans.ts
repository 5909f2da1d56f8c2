/**
 * The spans the pipeline makes when tracing is on (`Tracing.Enabled` of
 * `@switchyard/observability`, read when a config is compiled): one per upstream attempt, so a
 * retried or fallen-back request shows each try, and one per checking stage covering the stage's
 * own work, from the moment the request reaches it until it hands the request on (or answers,
 * or refuses it itself): the guardrails' input checks, the limits check, the cache lookup.
 * With tracing off the compiler does not call these: nothing is wrapped.
 */
import { Tracing } from "@switchyard/observability"
import { Clock, Context, Effect, Exit, Option, Tracer } from "effect"
import type { Dispatch, Middleware } from "./Dispatch.ts"
import { operationNames } from "./Endpoint.ts"
import { UpstreamStatus } from "./GatewayError.ts"
import type { Phase } from "./Stage.ts"

/** The checking stages' span names; the other stages (retry, breaker, timeout) surround attempts. */
const stageSpanNames: Partial<Record<Phase, string>> = {
  prompt: "prompt render",
  guardrails: "guardrail check",
  limits: "limits check",
  cache: "cache lookup"
}

/** The stage spans: handing on ends one of them, never a span someone else made current. */
const stageSpans = new WeakSet<Tracer.Span>()

/** Ends the stage's span as it hands on; what follows is a sibling under the request's span. */
const handingOn = (next: Dispatch): Dispatch => (request) =>
  Effect.withFiber((fiber) => {
    const current = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    if (current?._tag !== "Span" || !stageSpans.has(current)) return next(request)
    current.end(fiber.getRef(Clock.Clock).currentTimeNanosUnsafe(), Exit.void)
    return Option.isSome(current.parent)
      ? Effect.withParentSpan(next(request), current.parent.value, Tracing.noStackTrace)
      : next(request)
  })

/**
 * A stage's middleware with its span, when the phase is a checking one and the leaf has the
 * stage at all (a stage that hands `next` back unchanged has nothing to show).
 */
export const stage = (phase: Phase, path: string, middleware: Middleware): Middleware => {
  const name = stageSpanNames[phase]
  if (name === undefined) return middleware
  const attributes = { "gateway.stage": phase, "gateway.target.path": path }
  return (next) => {
    const handOn = handingOn(next)
    const wrapped = middleware(handOn)
    if (wrapped === handOn) return next
    return (request) =>
      Effect.useSpan(name, { attributes }, (span) => {
        stageSpans.add(span)
        return Effect.withParentSpan(wrapped(request), span, Tracing.noStackTrace)
      })
  }
}

/**
 * One upstream attempt as a GenAI client span (`{operation} {model}`), with the provider, the
 * model asked for, the leaf's path and the status the provider answered.
 */
export const attempt = (provider: string, path: string, upstream: Dispatch): Dispatch => (request) => {
  const operation = operationNames[request.endpoint]
  const model = typeof request.body.model === "string" ? request.body.model : undefined
  const attributes = {
    "gen_ai.operation.name": operation,
    "gen_ai.provider.name": provider,
    "gen_ai.request.model": model,
    "gateway.target.path": path
  }
  return Effect.useSpan(
    model === undefined ? operation : `${operation} ${model}`,
    { attributes, kind: "client" },
    (span) =>
      Effect.withParentSpan(upstream(request), span, Tracing.noStackTrace).pipe(
        Effect.tap((response) => Effect.sync(() => span.attribute("http.response.status_code", response.status))),
        Effect.tapError((error) =>
          Effect.sync(() => {
            if (error instanceof UpstreamStatus) span.attribute("http.response.status_code", error.status)
            span.attribute("error.type", error._tag)
          })
        )
      )
  )
}
