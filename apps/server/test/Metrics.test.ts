/**
 * GET /metrics after known traffic (extensions.md, "Running it", metrics): the request counter by
 * route pattern and status, the GenAI duration, token and first-token histograms by operation,
 * provider and model, cache lookups by status, retries, and the cost and tokens of calls made in
 * process (a prompt completion, batch lines); `GATEWAY_METRICS=off` removes the route.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { ModelCatalog } from "@switchyard/providers"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as Batches from "./support/Batches.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  gateway = await GatewayProcess.start({ GATEWAY_LOG_LEVEL: "warn" })
})
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
})

const chat = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": fake.baseUrl,
      authorization: "Bearer sk-upstream",
      ...headers
    },
    body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hello" }], ...body })
  })

/** `name{labels} value` lines of the exposition, as a lookup by name and exact label text. */
const scrape = async (): Promise<(series: string) => number | undefined> => {
  const response = await fetch(`${gateway.baseUrl}/metrics`)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toContain("text/plain")
  const values = new Map<string, number>()
  for (const line of (await response.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const space = line.lastIndexOf(" ")
    values.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return (series) => values.get(series)
}

const chatLabels = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"openai\",gen_ai_request_model=\"gpt-4o-mini\""

describe("GET /metrics", () => {
  it("counts known traffic by route and status, with the GenAI histograms", async () => {
    for (let i = 0; i < 3; i++) expect((await chat()).status).toBe(200)
    const streamed = await chat({ stream: true, stream_options: { include_usage: true } })
    expect(streamed.status).toBe(200)
    await streamed.text()
    fake.enqueue(Behaviour.resetConnection())
    expect((await chat()).status).toBe(502)
    expect(
      (await fetch(`${gateway.baseUrl}/v1/configs/pc-missing`, {
        headers: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY }
      })).status
    ).toBe(404)

    const after = await scrape()
    expect(after("gateway_requests_total{route=\"POST /v1/chat/completions\",status=\"200\"}")).toBe(4)
    expect(after("gateway_requests_total{route=\"POST /v1/chat/completions\",status=\"502\"}")).toBe(1)
    // the pattern, not the path: no series per object id
    expect(after("gateway_requests_total{route=\"GET /v1/configs/:id\",status=\"404\"}")).toBe(1)
    expect(after("gateway_requests_total{route=\"GET /v1/configs/pc-missing\",status=\"404\"}")).toBeUndefined()
    // every operation a provider was chosen for, the failed one included (this gateway is fresh)
    expect(after(`gen_ai_client_operation_duration_seconds_count{${chatLabels}}`)).toBe(5)
    // the fake reports 1 prompt token and 2 completion tokens per answer, the streamed one included
    expect(after(`gen_ai_client_token_usage_sum{${chatLabels},gen_ai_token_type="input"}`)).toBe(4)
    expect(after(`gen_ai_client_token_usage_sum{${chatLabels},gen_ai_token_type="output"}`)).toBe(8)
    expect(after(`gen_ai_server_time_to_first_token_seconds_count{${chatLabels}}`)).toBe(1)
  })

  it("counts cache lookups by status, and no tokens for a hit", async () => {
    const cached = {
      "x-gateway-config": JSON.stringify({
        provider: "openai",
        api_key: "sk",
        custom_host: fake.baseUrl,
        cache: { mode: "simple" }
      })
    }
    const body = { messages: [{ role: "user", content: "cache me" }] }
    const before = await scrape()
    const inputs = `gen_ai_client_token_usage_count{${chatLabels},gen_ai_token_type="input"}`
    const countedBefore = before(inputs) ?? 0
    expect((await chat(body, cached)).headers.get("x-gateway-cache-status")).toBe("MISS")
    expect((await chat(body, cached)).headers.get("x-gateway-cache-status")).toBe("HIT")
    const after = await scrape()
    expect(after("gateway_cache_lookups_total{status=\"MISS\"}")).toBe(
      (before("gateway_cache_lookups_total{status=\"MISS\"}") ?? 0) + 1
    )
    expect(after("gateway_cache_lookups_total{status=\"HIT\"}")).toBe(
      (before("gateway_cache_lookups_total{status=\"HIT\"}") ?? 0) + 1
    )
    // the miss's answer only
    expect(after(inputs)).toBe(countedBefore + 1)
  })

  it("counts the retries a request needed, by provider", async () => {
    const retrying = {
      "x-gateway-config": JSON.stringify({
        provider: "openai",
        api_key: "sk",
        custom_host: fake.baseUrl,
        retry: { attempts: 2 }
      })
    }
    fake.enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const before = (await scrape())("gateway_retries_total{provider=\"openai\"}") ?? 0
    expect((await chat({}, retrying)).status).toBe(200)
    expect((await scrape())("gateway_retries_total{provider=\"openai\"}")).toBe(before + 1)
  })

  it("never shows a key, a credential or a body", async () => {
    const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
    expect(text).not.toContain(GatewayProcess.ADMIN_KEY)
    expect(text).not.toContain("sk-upstream")
    expect(text).not.toContain("hello")
  })
})

describe("calls that run the pipeline in process", () => {
  const cost = `gateway_cost_usd_total{gen_ai_provider_name="openai",gen_ai_request_model="gpt-4o-mini"}`
  const inputs = `gen_ai_client_token_usage_sum{${chatLabels},gen_ai_token_type="input"}`
  const outputs = `gen_ai_client_token_usage_sum{${chatLabels},gen_ai_token_type="output"}`
  // the fake reports 1 prompt token and 2 completion tokens per answer
  const oneAnswer = ModelCatalog.costOf("openai", "gpt-4o-mini", { prompt_tokens: 1, completion_tokens: 2 }) ?? 0

  it("counts a prompt completion's cost and tokens", async () => {
    const prompt = await call(gateway.baseUrl, "POST", "/v1/prompts", {
      body: { name: "metered", model: "gpt-4o-mini", template: [{ role: "user", content: "hi {{name}}" }] }
    })
    expect(prompt.status).toBe(200)
    const before = await scrape()
    const completed = await call(gateway.baseUrl, "POST", `/v1/prompts/${prompt.body.id}/completions`, {
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": fake.baseUrl, authorization: "Bearer sk" },
      body: { variables: { name: "Ada" } }
    })
    expect(completed.status).toBe(200)
    const usage = completed.body.body.usage
    const after = await scrape()
    expect((after(cost) ?? 0) - (before(cost) ?? 0)).toBeCloseTo(
      ModelCatalog.costOf("openai", "gpt-4o-mini", usage) ?? 0,
      12
    )
    expect((after(inputs) ?? 0) - (before(inputs) ?? 0)).toBe(usage.prompt_tokens)
    expect((after(outputs) ?? 0) - (before(outputs) ?? 0)).toBe(usage.completion_tokens)
  })

  it("counts the cost and tokens of each line of a batch, run by the server's worker", async () => {
    const openai = new OpenAI({
      apiKey: "sk-upstream",
      baseURL: `${gateway.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": fake.baseUrl
      },
      maxRetries: 0
    })
    const input = await Batches.uploadChatLines(openai, ["a", "b", "c"])
    const before = await scrape()
    const batch = await Batches.runToEnd(openai, input.id)
    expect(batch.status).toBe("completed")
    const after = await scrape()
    expect((after(cost) ?? 0) - (before(cost) ?? 0)).toBeCloseTo(3 * oneAnswer, 12)
    expect((after(inputs) ?? 0) - (before(inputs) ?? 0)).toBe(3)
    expect((after(outputs) ?? 0) - (before(outputs) ?? 0)).toBe(6)
  })
})

describe("GATEWAY_METRICS=false", () => {
  it("removes the route: 404 in the envelope", async () => {
    const off = await GatewayProcess.start({ GATEWAY_METRICS: "false" })
    try {
      const answer = await fetch(`${off.baseUrl}/metrics`)
      expect(answer.status).toBe(404)
      expect(await answer.json()).toMatchObject({ error: { code: "not_found" } })
    } finally {
      await off.stop()
    }
  })
})
