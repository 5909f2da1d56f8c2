import { assert, describe, it } from "@effect/vitest"
import { GatewayMetrics, MetricsText } from "@switchyard/observability"
import { Effect, Metric } from "effect"

const scrape = Effect.gen(function*() {
  const metrics = yield* GatewayMetrics.GatewayMetrics
  return { metrics, text: MetricsText.render }
}).pipe(Effect.provide(GatewayMetrics.GatewayMetrics.layer))

const freshRegistry = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.provideService(effect, Metric.MetricRegistry, new Map())

describe("GatewayMetrics", () => {
  it.effect("adds up requests by route and status, and retries by provider (none for zero)", () =>
    Effect.gen(function*() {
      const { metrics, text } = yield* scrape
      metrics.request("GET /v1/configs/:id", 404)
      metrics.request("GET /v1/configs/:id", 404)
      metrics.request("GET /v1/configs/:id", 200)
      metrics.retries("openai", 2)
      metrics.retries("anthropic", 0)
      const rendered = yield* text
      assert.include(rendered, "gateway_requests_total{route=\"GET /v1/configs/:id\",status=\"404\"} 2")
      assert.include(rendered, "gateway_requests_total{route=\"GET /v1/configs/:id\",status=\"200\"} 1")
      assert.include(rendered, "gateway_retries_total{provider=\"openai\"} 2")
      assert.notInclude(rendered, "anthropic")
    }).pipe(freshRegistry))

  it.effect("keeps at most MAX_SERIES label sets per metric and counts the rest under other", () =>
    Effect.gen(function*() {
      const { metrics, text } = yield* scrape
      const extra = 25
      for (let index = 0; index < GatewayMetrics.MAX_SERIES + extra; index++) {
        metrics.operation({ operation: "chat", provider: "openai", model: `invented-${index}` }, 0.01)
      }
      const rendered = yield* text
      const series = rendered.split("\n").filter((line) =>
        line.startsWith("gen_ai_client_operation_duration_seconds_count")
      )
      assert.strictEqual(series.length, GatewayMetrics.MAX_SERIES + 1)
      const other = series.find((line) => line.includes("gen_ai_request_model=\"other\""))
      assert.isDefined(other)
      assert.isTrue(other?.endsWith(` ${extra}`), other)
    }).pipe(freshRegistry))
})
