/**
 * OpenTelemetry traces (extensions.md, "Running it", traces) from a real gateway to a fake OTLP
 * collector on 127.0.0.1: one server span per inference request with the GenAI attributes, and
 * under it a span per upstream attempt (a retry shows two), the cache lookup, the guardrail check
 * and the limits check (when a policy is active in the workspace); a caller's W3C `traceparent` continued; a streamed request's span ended
 * after its stream; and a collector that is down or never answers costing requests nothing.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as FakeCollector from "./support/FakeCollector.ts"
import { chatBody, sseData } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let collector: FakeCollector.FakeCollector
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  collector = await FakeCollector.start()
  gateway = await GatewayProcess.start({
    GATEWAY_LOG_LEVEL: "warn",
    // JSON, the default encoding
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=s3cret%20token",
    OTEL_BSP_SCHEDULE_DELAY: "50"
  })
})
afterAll(async () => {
  await gateway?.stop()
  await collector?.close()
  await fake?.close()
})
beforeEach(() => fake.reset())

const leaf = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ provider: "openai", api_key: "sk-trace", custom_host: fake.baseUrl, ...extra })

const chat = (
  config: string,
  content: string,
  options: { readonly headers?: Record<string, string>; readonly body?: Record<string, unknown> } = {},
  baseUrl = gateway.baseUrl
) =>
  fetch(`${baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-config": config,
      ...options.headers
    },
    body: JSON.stringify(chatBody({ messages: [{ role: "user", content }], ...options.body }))
  })

/** The request span of the exchange whose answer carried `traceId`, and its children once all arrived. */
const traceOf = async (response: Response, children: number) => {
  const traceId = response.headers.get("x-gateway-trace-id")
  const root = await collector.waitFor((span) => span.attributes["gateway.trace_id"] === traceId)
  const deadline = Date.now() + 5_000
  let below = collector.spans.filter((span) => span.parentSpanId === root.spanId)
  while (below.length < children && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25))
    below = collector.spans.filter((span) => span.parentSpanId === root.spanId)
  }
  return { root, children: below, named: (name: string) => below.filter((span) => span.name === name) }
}

describe("traces over OTLP/HTTP", () => {
  it("sends one server span per request with the GenAI and HTTP attributes", async () => {
    const response = await chat(leaf(), "hello")
    expect(response.status).toBe(200)
    const body = (await response.json()) as {
      readonly model: string
      readonly usage: { readonly prompt_tokens: number; readonly completion_tokens: number }
    }
    const { named, root } = await traceOf(response, 1)
    expect(root.name).toBe("POST /v1/chat/completions")
    expect(root.kind).toBe(2)
    expect(root.parentSpanId).toBe("")
    expect(root.serviceName).toBe("switchyard")
    expect(root.status).toBe(1)
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.response.model": body.model,
      "gen_ai.usage.input_tokens": body.usage.prompt_tokens,
      "gen_ai.usage.output_tokens": body.usage.completion_tokens,
      "http.request.method": "POST",
      "http.route": "/v1/chat/completions",
      "http.response.status_code": 200,
      "gateway.trace_id": response.headers.get("x-gateway-trace-id")
    })
    // the gateway's own id stays what the client sees; the span has an OTel trace id of its own
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/)
    const [attempt] = named("chat gpt-4o-mini")
    expect(attempt).toMatchObject({ kind: 3, traceId: root.traceId, status: 1 })
    expect(attempt?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gateway.target.path": "config",
      "http.response.status_code": 200
    })
    // the exporter sends OTEL_EXPORTER_OTLP_HEADERS, percent-decoded, and JSON unless told otherwise
    expect(collector.lastHeaders()?.["x-collector-token"]).toBe("s3cret token")
    expect(collector.contentTypes[0]).toBe("application/json")
  })

  it("shows each upstream attempt of a retried request as its own span", async () => {
    fake.enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const response = await chat(leaf({ retry: { attempts: 2 } }), "retried")
    expect(response.status).toBe(200)
    expect(response.headers.get("x-gateway-retry-attempt-count")).toBe("1")
    const { named, root } = await traceOf(response, 2)
    const attempts = named("chat gpt-4o-mini").sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano))
    expect(attempts.map((span) => span.attributes["http.response.status_code"])).toEqual([503, 200])
    expect(attempts.map((span) => span.status)).toEqual([2, 1])
    expect(attempts[0]?.attributes["error.type"]).toBe("UpstreamStatus")
    expect(attempts[1]!.startTimeUnixNano).toBeGreaterThanOrEqual(attempts[0]!.endTimeUnixNano)
    expect(root.attributes["gateway.retry.attempts"]).toBe(1)
  })

  it("sends each upstream attempt's W3C traceparent to the provider, naming the attempt's span", async () => {
    fake.enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const response = await chat(leaf({ retry: { attempts: 2 } }), "traced upstream")
    expect(response.status).toBe(200)
    const { named } = await traceOf(response, 2)
    const attempts = named("chat gpt-4o-mini").sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano))
    expect(attempts).toHaveLength(2)
    expect(fake.requests.map((request) => request.headers.traceparent)).toEqual(
      attempts.map((span) => `00-${span.traceId}-${span.spanId}-01`)
    )
  })

  it("shows each fallback target's attempt with its path", async () => {
    fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const config = JSON.stringify({
      strategy: { mode: "fallback" },
      targets: [JSON.parse(leaf()), JSON.parse(leaf())]
    })
    const response = await chat(config, "fall back")
    expect(response.status).toBe(200)
    const { named } = await traceOf(response, 2)
    const paths = named("chat gpt-4o-mini").sort((a, b) => Number(a.startTimeUnixNano - b.startTimeUnixNano))
      .map((span) => span.attributes["gateway.target.path"])
    expect(paths).toEqual(["config.targets[0]", "config.targets[1]"])
  })

  it("spans the cache lookup, and a hit calls no provider", async () => {
    const config = leaf({ cache: { mode: "simple", max_age: 60 } })
    const question = `cached ${Date.now()}`
    const miss = await chat(config, question)
    expect(miss.headers.get("x-gateway-cache-status")).toBe("MISS")
    const missed = await traceOf(miss, 2)
    expect(missed.named("cache lookup")).toHaveLength(1)
    expect(missed.named("chat gpt-4o-mini")).toHaveLength(1)
    const [lookup] = missed.named("cache lookup")
    const [attempt] = missed.named("chat gpt-4o-mini")
    // the lookup ends as the miss goes on to the provider
    expect(lookup!.endTimeUnixNano).toBeLessThanOrEqual(attempt!.startTimeUnixNano)

    const hit = await chat(config, question)
    expect(hit.headers.get("x-gateway-cache-status")).toBe("HIT")
    const served = await traceOf(hit, 1)
    expect(served.named("cache lookup")).toHaveLength(1)
    expect(served.named("chat gpt-4o-mini")).toHaveLength(0)
    expect(served.root.attributes["gateway.cache.status"]).toBe("HIT")
    // a cached answer used no provider tokens
    expect(served.root.attributes["gen_ai.usage.input_tokens"]).toBeUndefined()
  })

  it("spans the guardrail check; a denied request fails it and never reaches the provider", async () => {
    const config = leaf({
      input_guardrails: [{ "default.contains": { words: ["forbidden"], operator: "none" }, deny: true }]
    })
    const allowed = await chat(config, "all fine")
    expect(allowed.status).toBe(200)
    const passed = await traceOf(allowed, 2)
    expect(passed.named("guardrail check")).toMatchObject([{ status: 1 }])
    expect(passed.named("chat gpt-4o-mini")).toHaveLength(1)

    const denied = await chat(config, "this is forbidden")
    expect(denied.status).toBe(446)
    const refused = await traceOf(denied, 1)
    expect(refused.named("guardrail check")).toMatchObject([{ status: 2 }])
    expect(refused.named("chat gpt-4o-mini")).toHaveLength(0)
    expect(refused.root.attributes["http.response.status_code"]).toBe(446)
    // a 4xx is the caller's: the server span is not an error
    expect(refused.root.status).not.toBe(2)
  })

  it("continues the caller's W3C traceparent, keeping the gateway's own trace id", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const parentId = "00f067aa0ba902b7"
    const response = await chat(leaf(), "continued", { headers: { traceparent: `00-${traceId}-${parentId}-01` } })
    expect(response.status).toBe(200)
    const { named, root } = await traceOf(response, 1)
    expect(root.traceId).toBe(traceId)
    expect(root.parentSpanId).toBe(parentId)
    expect(named("chat gpt-4o-mini")[0]?.traceId).toBe(traceId)
    expect(response.headers.get("x-gateway-trace-id")).not.toBe(traceId)
    expect(root.attributes["gateway.trace_id"]).toBe(response.headers.get("x-gateway-trace-id"))
  })

  it("starts a new trace for a malformed traceparent", async () => {
    const response = await chat(leaf(), "malformed", { headers: { traceparent: "00-xyz-00f067aa0ba902b7-01" } })
    const { root } = await traceOf(response, 1)
    expect(root.parentSpanId).toBe("")
  })

  it("exports nothing of a trace its caller did not sample, and tells the provider it is not sampled", async () => {
    const traceId = "5bf92f3577b34da6a3ce929d0e0e4737"
    const parentId = "10f067aa0ba902b8"
    const unsampled = await chat(leaf(), "not sampled", {
      headers: { traceparent: `00-${traceId}-${parentId}-00` }
    })
    expect(unsampled.status).toBe(200)
    const sent = fake.requests[0]?.headers.traceparent ?? ""
    expect(sent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`))
    expect(sent).not.toContain(parentId)
    // spans are exported in the order they end: once a later request's span is in, the first's would be
    const later = await chat(leaf(), "sampled after")
    await traceOf(later, 1)
    expect(collector.spans.filter((span) => span.traceId === traceId)).toEqual([])
  })

  it("ends a streamed request's span after its last chunk, with the usage the stream reported", async () => {
    fake.enqueue(Behaviour.slowStream(80))
    const started = process.hrtime.bigint()
    const response = await chat(leaf(), "stream it", {
      body: { stream: true, stream_options: { include_usage: true } }
    })
    expect(response.status).toBe(200)
    const events = sseData(await response.text())
    const streamedNs = process.hrtime.bigint() - started
    expect(events.at(-1)).toBe("[DONE]")
    const { named, root } = await traceOf(response, 1)
    const [attempt] = named("chat gpt-4o-mini")
    // the attempt ends when the provider's answer begins; the request when the stream ends
    expect(root.endTimeUnixNano - root.startTimeUnixNano).toBeGreaterThan(streamedNs / 2n)
    expect(root.endTimeUnixNano).toBeGreaterThan(attempt!.endTimeUnixNano)
    expect(root.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0)
  })

  it("spans the limits check while a policy is active in the workspace, and not when it has nothing to check", async () => {
    /** The limits spans of a request sent after one that read the workspace's policies (a second's cache). */
    const limitsSpans = async (content: string) => {
      expect((await chat(leaf(), `${content}, first`)).status).toBe(200)
      const response = await chat(leaf(), content)
      expect(response.status).toBe(200)
      return (await traceOf(response, 1)).named("limits check")
    }
    expect(await limitsSpans("no policy yet")).toEqual([])

    const policies = `${gateway.baseUrl}/v1/policies/usage-limits`
    const admin = { "content-type": "application/json", "x-gateway-api-key": GatewayProcess.ADMIN_KEY }
    const created = await fetch(policies, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({
        conditions: [{ key: "workspace_id", value: "*" }],
        group_by: [{ key: "api_key" }],
        type: "tokens",
        credit_limit: 1_000_000_000
      })
    })
    expect(created.status).toBe(200)
    const { id } = (await created.json()) as { readonly id: string }
    try {
      const limited = await chat(leaf(), "under a policy")
      expect(limited.status).toBe(200)
      const { named } = await traceOf(limited, 2)
      const [check] = named("limits check")
      const [attempt] = named("chat gpt-4o-mini")
      expect(check?.attributes).toMatchObject({ "gateway.stage": "limits", "gateway.target.path": "config" })
      // the check ends as the request goes on to the provider
      expect(check!.endTimeUnixNano).toBeLessThanOrEqual(attempt!.startTimeUnixNano)
    } finally {
      expect((await fetch(`${policies}/${id}`, { method: "DELETE", headers: admin })).status).toBe(200)
    }
    expect(await limitsSpans("policy deleted")).toEqual([])
  })

  it("gives a management route a server span of its own", async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/configs/pc-missing`, {
      headers: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY }
    })
    expect(response.status).toBe(404)
    const span = await collector.waitFor((candidate) =>
      candidate.kind === 2 && candidate.attributes["url.path"] === "/v1/configs/pc-missing"
    )
    expect(span.attributes["http.response.status_code"]).toBe(404)
  })
})

describe("traces over OTLP/HTTP protobuf", () => {
  it("sends the spans as application/x-protobuf", { timeout: 60_000 }, async () => {
    const protobuf = await FakeCollector.start()
    const traced = await GatewayProcess.start({
      GATEWAY_LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${protobuf.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      OTEL_SERVICE_NAME: "edge-7",
      OTEL_BSP_SCHEDULE_DELAY: "50"
    })
    try {
      const response = await chat(leaf(), "in protobuf", {}, traced.baseUrl)
      expect(response.status).toBe(200)
      const traceId = response.headers.get("x-gateway-trace-id")
      const root = await protobuf.waitFor((span) => span.attributes["gateway.trace_id"] === traceId)
      expect(protobuf.contentTypes[0]).toBe("application/x-protobuf")
      expect(root).toMatchObject({ name: "POST /v1/chat/completions", kind: 2, serviceName: "edge-7" })
      expect(root.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0)
      const attempt = await protobuf.waitFor((span) => span.parentSpanId === root.spanId && span.kind === 3)
      expect(attempt.traceId).toBe(root.traceId)
    } finally {
      await traced.stop()
      await protobuf.close()
    }
  })
})

describe("a collector that is down or never answers", () => {
  const timed = async (baseUrl: string, count: number) => {
    const durations: Array<number> = []
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      const response = await chat(leaf(), `request ${i}`, {}, baseUrl)
      expect(response.status).toBe(200)
      await response.text()
      durations.push(performance.now() - started)
    }
    return durations
  }

  it("never fails or slows a request: its spans are dropped", async () => {
    const collector = await FakeCollector.start()
    collector.mode = "never"
    // every span is an export of its own, and an export may wait 10 s for the collector: a request
    // that waited on one would take that long
    const gateway = await GatewayProcess.start({
      GATEWAY_LOG_LEVEL: "warn",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "1",
      OTEL_EXPORTER_OTLP_TIMEOUT: "10000"
    })
    try {
      // a collector that takes every export and never answers
      expect(Math.max(...await timed(gateway.baseUrl, 30))).toBeLessThan(3_000)
      expect(collector.held()).toBeGreaterThan(0)
      expect(collector.spans).toHaveLength(0)
      // then one that is down: nothing listens there any more
      await collector.close()
      expect(Math.max(...await timed(gateway.baseUrl, 30))).toBeLessThan(3_000)
    } finally {
      await gateway.stop()
      await collector.close()
    }
  }, 120_000)
})
