/**
 * The spans the pipeline makes when tracing is on (`Tracing.Enabled` of
 * `@switchyard/observability`, read when a config is compiled): one per upstream attempt, so a
 * retried or fallen-back request shows each try, and one per checking stage covering the stage's
 * own work, from the moment the request reaches it until it hands the request on (or answers,
 * or refuses it itself): the guardrails' input checks, the limits check, the cache lookup; none
 * for a stage whose dispatch says it has nothing to check for the request (`Dispatch.withIdleTest`:
 * the limits, when no policy is active in its workspace).
 * With tracing off the compiler does not call these: nothing is wrapped. Under a request whose
 * trace is not sampled they make no span either: nothing would export it, and with
 * `OTEL_TRACES_SAMPLER=always_off` the spans made anyway cost about a tenth of the gateway's
 * throughput. The `traceparent` sent upstream then names the request's span, marked not sampled.
 */
import { Tracing } from "@switchyard/observability"
import { Cause, Clock, Context, Effect, Exit, type Fiber, Option, Tracer } from "effect"
import * as Dispatch from "./Dispatch.ts"
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

/**
 * The span of the checking stage a request is in, until the stage hands it on. Not the parent
 * span: nothing under a stage makes spans, and changing the parent span costs a rebuild of the
 * fiber's service cache, where this key does not.
 */
const OpenStage = Context.Reference<Tracer.Span | undefined>("@switchyard/core/PipelineSpans/OpenStage", {
  defaultValue: () => undefined
})

/** A checking stage's span's attributes. */
const stageAttributes = new Tracing.AttributeLayout(["gateway.stage", "gateway.target.path"])

/** An upstream attempt's span's attributes. */
const attemptAttributes = new Tracing.AttributeLayout([
  "gen_ai.operation.name",
  "gen_ai.provider.name",
  "gen_ai.request.model",
  "gateway.target.path",
  "http.response.status_code",
  "error.type"
])

/** Whether the request's trace is recorded: spans under a parent not sampled are made for nothing. */
const recorded = (fiber: Fiber.Fiber<unknown, unknown>): boolean =>
  Context.getOrUndefined(fiber.context, Tracer.ParentSpan)?.sampled !== false

/** Ends the stage's span as it hands on; what follows is its sibling under the request's span. */
const handingOn = (next: Dispatch.Dispatch): Dispatch.Dispatch => (request) =>
  Effect.withFiber((fiber) => {
    const open = fiber.getRef(OpenStage)
    if (open !== undefined) Tracing.endSpan(fiber, open, Exit.void)
    return next(request)
  })

/**
 * A stage's middleware with its span, when the phase is a checking one and the leaf has the
 * stage at all (a stage that hands `next` back unchanged has nothing to show).
 */
export const stage = (phase: Phase, path: string, middleware: Dispatch.Middleware): Dispatch.Middleware => {
  const name = stageSpanNames[phase]
  if (name === undefined) return middleware
  // the same for every request through this stage
  const attributes = [phase, path]
  return (next) => {
    const handOn = handingOn(next)
    const wrapped = middleware(handOn)
    if (wrapped === handOn) return next
    const idle = Dispatch.idleTestOf(wrapped)
    return (request) =>
      Effect.withFiber((fiber) => {
        if (!recorded(fiber)) return wrapped(request)
        if (idle?.(request, fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()) === true) return wrapped(request)
        const span = Tracing.startSpan(fiber, name, "internal")
        Tracing.setAttributes(span, stageAttributes, attributes)
        // a stage that answers or refuses itself ends here (a span already ended stays as it was)
        return Effect.onExit(Effect.provideService(wrapped(request), OpenStage, span), (exit) => {
          Tracing.endSpan(fiber, span, exit)
          return Effect.void
        })
      })
  }
}

/**
 * One upstream attempt as a GenAI client span (`{operation} {model}`), with the provider, the
 * model asked for, the leaf's path and the status the provider answered. The upstream call's W3C
 * `traceparent` names it (`Tracing.AttemptSpan`).
 */
export const attempt = (provider: string, path: string, upstream: Dispatch.Dispatch): Dispatch.Dispatch => (request) =>
  Effect.withFiber((fiber) => {
    if (!recorded(fiber)) return upstream(request)
    const operation = operationNames[request.endpoint]
    const model = typeof request.body.model === "string" ? request.body.model : undefined
    const span = Tracing.startSpan(fiber, model === undefined ? operation : `${operation} ${model}`, "client")
    return Effect.onExit(Effect.provideService(upstream(request), Tracing.AttemptSpan, span), (exit) => {
      let status: number | undefined
      let errorType: string | undefined
      if (Exit.isSuccess(exit)) {
        status = exit.value.status
      } else {
        const error = Cause.findErrorOption(exit.cause)
        if (Option.isSome(error)) {
          if (error.value instanceof UpstreamStatus) status = error.value.status
          errorType = error.value._tag
        }
      }
      Tracing.setAttributes(span, attemptAttributes, [operation, provider, model, path, status, errorType])
      Tracing.endSpan(fiber, span, exit)
      return Effect.void
    })
  })
