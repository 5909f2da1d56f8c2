import { assert, describe, it } from "@effect/vitest"
import { Tracing } from "@switchyard/observability"
import { UpstreamClient } from "@switchyard/providers"
import { Effect, Layer, Tracer } from "effect"
import { chatBody, fakeOpenAI } from "./support/Upstream.ts"

// W3C trace context towards the provider: the span a call runs under (the pipeline's upstream
// attempt) is named in its `traceparent` when tracing is on, and nothing is sent when it is off.

const attempt = Tracer.externalSpan({
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  sampled: true
})

const postUnder = (span: Tracer.AnySpan | undefined, headers: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    const fake = yield* fakeOpenAI
    const client = yield* UpstreamClient.UpstreamClient
    const call = client.post({
      provider: "openai",
      url: `${fake.baseUrl}/v1/chat/completions`,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(chatBody)
    })
    const response = yield* (span === undefined ? call : Effect.withParentSpan(call, span))
    yield* response.discard
    return fake.requests[0]?.headers
  })

const traced = UpstreamClient.UpstreamClient.layer().pipe(Layer.provide(Tracing.layerEnabled))
const untraced = UpstreamClient.UpstreamClient.layer()

describe("UpstreamClient traceparent", () => {
  it.effect("sends the traceparent of the span the call runs under when tracing is on", () =>
    Effect.gen(function*() {
      const headers = yield* postUnder(attempt)
      assert.strictEqual(headers?.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    }).pipe(Effect.scoped, Effect.provide(traced)))

  it.effect("marks a span that is not sampled as such", () =>
    Effect.gen(function*() {
      const headers = yield* postUnder(Tracer.externalSpan({ ...attempt, sampled: false }))
      assert.strictEqual(headers?.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
    }).pipe(Effect.scoped, Effect.provide(traced)))

  it.effect("replaces a traceparent the caller forwarded, which names the caller's span, not the attempt", () =>
    Effect.gen(function*() {
      const forwarded = "00-11111111111111111111111111111111-2222222222222222-01"
      const headers = yield* postUnder(attempt, { traceparent: forwarded })
      assert.strictEqual(headers?.traceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    }).pipe(Effect.scoped, Effect.provide(traced)))

  it.effect("sends no traceparent when tracing is off, even under a span", () =>
    Effect.gen(function*() {
      const headers = yield* postUnder(attempt)
      assert.isUndefined(headers?.traceparent)
    }).pipe(Effect.scoped, Effect.provide(untraced)))

  it.effect("sends no traceparent outside any span", () =>
    Effect.gen(function*() {
      const headers = yield* postUnder(undefined)
      assert.isUndefined(headers?.traceparent)
    }).pipe(Effect.scoped, Effect.provide(traced)))
})
