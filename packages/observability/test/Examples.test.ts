import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Logs } from "@switchyard/observability"
import { ConfigProvider, Effect, Metric } from "effect"
import { appLogging } from "../examples/AppLogging.ts"
import { scrapeAfterChat } from "../examples/ScrapeMetrics.ts"
import { traceSettings } from "../examples/TraceSettings.ts"

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("ScrapeMetrics: the request, its duration and its tokens in Prometheus text", () =>
    Effect.gen(function*() {
      const text = yield* scrapeAfterChat
      assert.include(text, "gateway_requests_total{route=\"POST /v1/chat/completions\",status=\"200\"} 1")
      const labels =
        "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\""
      assert.include(text, `gen_ai_client_operation_duration_seconds_sum{${labels}} 0.42`)
      assert.include(text, `gen_ai_client_token_usage_sum{${labels},gen_ai_token_type="output"} 30`)
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("AppLogging: the level GATEWAY_LOG_LEVEL names and up", () =>
    Effect.gen(function*() {
      const logs = yield* Logs.Logs
      assert.deepStrictEqual([logs.enabled("info"), logs.enabled("warn"), logs.enabled("error")], [false, true, true])
    }).pipe(
      Effect.provide(appLogging),
      Effect.provideService(
        ConfigProvider.ConfigProvider,
        ConfigProvider.fromUnknown({ GATEWAY_LOG_FORMAT: "json", GATEWAY_LOG_LEVEL: "warn" })
      )
    ))

  it.effect("TraceSettings: the traces endpoint and service name from OTEL_* variables", () =>
    Effect.gen(function*() {
      const settings = yield* traceSettings
      assert.strictEqual(settings?.url, "http://127.0.0.1:4318/v1/traces")
      assert.strictEqual(settings?.serviceName, "edge-1")
    }))
})
