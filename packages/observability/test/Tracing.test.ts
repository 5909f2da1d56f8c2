import { assert, describe, it } from "@effect/vitest"
import { OtlpTraces, Tracing } from "@switchyard/observability"
import { ConfigProvider, Effect, Exit } from "effect"

const settingsOf = (env: Record<string, string>) => OtlpTraces.SettingsConfig.parse(ConfigProvider.fromEnv({ env }))

describe("Tracing.parentOf", () => {
  it("reads a W3C traceparent: trace id, parent span id and the sampled flag", () => {
    const parent = Tracing.parentOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    assert.deepStrictEqual(
      { traceId: parent?.traceId, spanId: parent?.spanId, sampled: parent?.sampled },
      { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", sampled: true }
    )
    assert.strictEqual(Tracing.parentOf("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.sampled, false)
  })

  it("ignores an absent, malformed or all-zero traceparent (a new trace starts)", () => {
    for (
      const value of [
        undefined,
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1"
      ]
    ) assert.isUndefined(Tracing.parentOf(value), String(value))
  })
})

describe("OtlpTraces.SettingsConfig", () => {
  it.effect("is off without a traces endpoint", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* settingsOf({}))
      assert.isUndefined(yield* settingsOf({ OTEL_SERVICE_NAME: "gw" }))
    }))

  it.effect("sends to the base endpoint's /v1/traces, in JSON unless told otherwise", () =>
    Effect.gen(function*() {
      const settings = yield* settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })
      assert.deepStrictEqual(settings, {
        url: "http://collector:4318/v1/traces",
        headers: {},
        protocol: "http/json",
        compression: "none",
        timeoutMs: 10_000,
        serviceName: "switchyard",
        exportIntervalMs: 5_000,
        maxBatchSize: 512,
        maxQueueSize: 2048,
        sampler: { parentBased: true, ratio: 1 }
      })
      const prefixed = yield* settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com/otlp/" })
      assert.strictEqual(prefixed?.url, "https://otel.example.com/otlp/v1/traces")
    }))

  it.effect("takes the traces signal's own variables over the shared ones", () =>
    Effect.gen(function*() {
      const settings = yield* settingsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://base:4318",
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://traces:4318/custom",
        OTEL_EXPORTER_OTLP_HEADERS: "x-shared=1",
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: "api-key=a%20b,x-team=ml",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
        OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
        OTEL_EXPORTER_OTLP_TIMEOUT: "2000",
        OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "700",
        OTEL_SERVICE_NAME: "edge-eu",
        OTEL_BSP_SCHEDULE_DELAY: "250",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "64",
        OTEL_BSP_MAX_QUEUE_SIZE: "1000",
        OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
        OTEL_TRACES_SAMPLER_ARG: "0.25"
      })
      assert.deepStrictEqual(settings, {
        url: "http://traces:4318/custom",
        headers: { "api-key": "a b", "x-team": "ml" },
        protocol: "http/protobuf",
        compression: "gzip",
        timeoutMs: 700,
        serviceName: "edge-eu",
        exportIntervalMs: 250,
        maxBatchSize: 64,
        maxQueueSize: 1000,
        sampler: { parentBased: true, ratio: 0.25 }
      })
      const never = yield* settingsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_TRACES_SAMPLER: "always_off"
      })
      assert.deepStrictEqual(never?.sampler, { parentBased: false, ratio: 0 })
    }))

  it.effect("leaves the service name to OTEL_RESOURCE_ATTRIBUTES when it names one", () =>
    Effect.gen(function*() {
      const settings = yield* settingsOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod, service.name=gw-prod"
      })
      assert.isUndefined(settings?.serviceName)
    }))

  it.effect("is off when the SDK or the traces exporter is turned off", () =>
    Effect.gen(function*() {
      const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      assert.isUndefined(yield* settingsOf({ ...endpoint, OTEL_SDK_DISABLED: "true" }))
      assert.isUndefined(yield* settingsOf({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }))
    }))

  it.effect("refuses at start-up what it cannot do: gRPC, a bad endpoint, a bad number", () =>
    Effect.gen(function*() {
      const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }
      for (
        const env of [
          { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
          { ...endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: "soon" },
          { ...endpoint, OTEL_EXPORTER_OTLP_COMPRESSION: "brotli" },
          { ...endpoint, OTEL_TRACES_SAMPLER: "jaeger_remote" },
          { ...endpoint, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" },
          { ...endpoint, OTEL_BSP_MAX_QUEUE_SIZE: "0" },
          { ...endpoint, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "-1" },
          { OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" }
        ]
      ) {
        const exit = yield* Effect.exit(settingsOf(env))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(env))
      }
    }))
})

describe("Tracing.isSampled", () => {
  const parent = (traceId: string, sampled: boolean) =>
    Tracing.parentOf(`00-${traceId}-00f067aa0ba902b7-0${sampled ? 1 : 0}`)
  const low = "4bf92f3577b34da6a3ce929d00000010"
  const high = "4bf92f3577b34da6a3ce929dfffffff0"

  it("follows the caller's decision when parent based, else the share of trace ids", () => {
    const half = { parentBased: true, ratio: 0.5 }
    assert.isTrue(Tracing.isSampled(half, parent(high, true)))
    assert.isFalse(Tracing.isSampled(half, parent(low, false)))
    const ratio = { parentBased: false, ratio: 0.5 }
    assert.isTrue(Tracing.isSampled(ratio, parent(low, false)))
    assert.isFalse(Tracing.isSampled(ratio, parent(high, true)))
    assert.isTrue(Tracing.isSampled({ parentBased: false, ratio: 1 }, parent(high, false)))
    assert.isFalse(Tracing.isSampled({ parentBased: true, ratio: 0 }, undefined))
  })

  it("records about the share asked for of new traces", () => {
    let sampled = 0
    for (let i = 0; i < 10_000; i++) if (Tracing.isSampled({ parentBased: true, ratio: 0.2 }, undefined)) sampled++
    assert.isTrue(sampled > 1_700 && sampled < 2_300, String(sampled))
  })
})

describe("Tracing.Enabled", () => {
  it.effect("is off unless a layer turns it on", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* Tracing.Enabled)
      const enabled = Effect.gen(function*() {
        return yield* Tracing.Enabled
      })
      assert.isTrue(yield* Effect.provide(enabled, Tracing.layerEnabled))
    }))
})
