/**
 * The request log over HTTP (extensions.md, "Running it", request log): a real gateway and a fake
 * provider; each kind of request leaves one record with what it did (stream and first token, cache
 * hit, retry, failure status, prompt completion), bodies only when GATEWAY_LOG_BODIES says so;
 * GET /v1/logs filters, pages and refuses bad values naming the field; records stay in their
 * workspace; the scope logs.read guards both routes; a record's detail shows its trace's feedback.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { ModelCatalog } from "@switchyard/providers"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import * as Batches from "./support/Batches.ts"
import { chatBody, sseData } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess
let withBodies: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  gateway = await GatewayProcess.start({ GATEWAY_LOG_LEVEL: "warn" })
  withBodies = await GatewayProcess.start({ GATEWAY_LOG_LEVEL: "warn", GATEWAY_LOG_BODIES: "true" })
}, 120_000)
afterAll(async () => {
  await Promise.all([gateway?.stop(), withBodies?.stop()])
  await fake?.close()
})
beforeEach(() => fake.reset())

const viaFake = (extra: Record<string, string> = {}) => ({
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": fake.baseUrl,
  authorization: "Bearer sk-upstream",
  ...extra
})

/** A chat completion; answers the trace id the gateway gave it. */
const chat = async (
  options: {
    readonly target?: GatewayProcess.GatewayProcess
    readonly body?: Record<string, unknown>
    readonly headers?: Record<string, string>
    readonly key?: string
  } = {}
) => {
  const response = await fetch(`${(options.target ?? gateway).baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": options.key ?? GatewayProcess.ADMIN_KEY,
      ...(options.headers ?? viaFake())
    },
    body: JSON.stringify(chatBody(options.body))
  })
  const text = await response.text()
  return { status: response.status, traceId: response.headers.get("x-gateway-trace-id") ?? "", text }
}

const logs = (query = "", options: { readonly key?: string; readonly target?: GatewayProcess.GatewayProcess } = {}) =>
  call((options.target ?? gateway).baseUrl, "GET", `/v1/logs${query}`, { key: options.key })

/** The one record of a trace. */
const recordOf = async (traceId: string, target = gateway, key?: string) => {
  const listed = await logs(`?trace_id=${traceId}`, { target, ...(key === undefined ? {} : { key }) })
  expect(listed.status).toBe(200)
  expect(listed.body.data).toHaveLength(1)
  return listed.body.data[0]
}

const usd = (prompt: number, completion: number) =>
  ModelCatalog.costOf("openai", "gpt-4o-mini", { prompt_tokens: prompt, completion_tokens: completion })

describe("the request log over HTTP", () => {
  it("records a chat completion with its tokens, catalog cost, latency, key, workspace and metadata", async () => {
    const sent = await chat({ headers: viaFake({ "x-gateway-metadata": JSON.stringify({ team: "search" }) }) })
    expect(sent.status).toBe(200)
    const answered = JSON.parse(sent.text)
    const record = await recordOf(sent.traceId)
    expect(record).toMatchObject({
      object: "request_log",
      trace_id: sent.traceId,
      route: "POST /v1/chat/completions",
      endpoint: "chat.completions",
      status: 200,
      stream: false,
      provider: "openai",
      model: "gpt-4o-mini",
      target_path: "config",
      usage: answered.usage,
      time_to_first_token_ms: null,
      cache_status: null,
      retries: 0,
      api_key_id: "admin",
      workspace_id: "00000000-0000-4000-8000-000000000000",
      metadata: { team: "search" },
      request_body: null,
      response_body: null
    })
    expect(record.cost_usd).toBeCloseTo(
      usd(answered.usage.prompt_tokens, answered.usage.completion_tokens) ?? Number.NaN,
      12
    )
    expect(record.cost_usd).toBeGreaterThan(0)
    expect(record.latency_ms).toBeGreaterThan(0)
    expect(Math.abs(record.created_at - Date.now() / 1000)).toBeLessThan(60)
  })

  it("records a streamed answer with its usage chunk and the time to its first token", async () => {
    fake.setDefault(Behaviour.slowStream(30))
    const sent = await chat({ body: { stream: true, stream_options: { include_usage: true } } })
    expect(sent.status).toBe(200)
    expect(sseData(sent.text).at(-1)).toBe("[DONE]")
    const record = await recordOf(sent.traceId)
    const usage = JSON.parse(sseData(sent.text).at(-2) ?? "{}").usage
    expect(record).toMatchObject({ stream: true, status: 200, usage })
    // the first chunk came before the last ones, each 30 ms apart
    expect(record.time_to_first_token_ms).toBeGreaterThan(0)
    expect(record.time_to_first_token_ms).toBeLessThan(record.latency_ms - 30)
  })

  it("records a cache hit as costing nothing, and the target path of a fallback", async () => {
    const config = {
      strategy: { mode: "fallback" },
      cache: { mode: "simple" },
      targets: [
        { provider: "openai", api_key: "sk", custom_host: "http://127.0.0.1:9" },
        { provider: "openai", api_key: "sk", custom_host: fake.baseUrl }
      ]
    }
    const headers = { "x-gateway-config": JSON.stringify(config) }
    const body = { messages: [{ role: "user", content: "cache me for the log" }] }
    const miss = await chat({ headers, body })
    const hit = await chat({ headers, body })
    expect([miss.status, hit.status]).toEqual([200, 200])
    const missed = await recordOf(miss.traceId)
    expect(missed).toMatchObject({ cache_status: "MISS", target_path: "config.targets[1]" })
    expect(missed.cost_usd).toBeGreaterThan(0)
    expect(await recordOf(hit.traceId)).toMatchObject({ cache_status: "HIT", cost_usd: 0 })
  })

  it("records the retries a request needed and the status of a failure", async () => {
    const retrying = {
      "x-gateway-config": JSON.stringify({
        provider: "openai",
        api_key: "sk",
        custom_host: fake.baseUrl,
        retry: { attempts: 2 }
      })
    }
    fake.enqueue(Behaviour.json(503, { error: { message: "busy" } }))
    const retried = await chat({ headers: retrying })
    expect(retried.status).toBe(200)
    expect(await recordOf(retried.traceId)).toMatchObject({ status: 200, retries: 1 })

    fake.enqueue(Behaviour.resetConnection())
    const failed = await chat()
    expect(failed.status).toBe(502)
    expect(await recordOf(failed.traceId)).toMatchObject({
      status: 502,
      provider: "openai",
      usage: null,
      cost_usd: null
    })
  })

  it("records a prompt completion, which runs the pipeline in process", async () => {
    const prompt = await call(gateway.baseUrl, "POST", "/v1/prompts", {
      body: { name: "logged", model: "gpt-4o-mini", template: [{ role: "user", content: "hi {{name}}" }] }
    })
    expect(prompt.status).toBe(200)
    const traceId = "prompt-trace-for-the-log"
    const completed = await call(gateway.baseUrl, "POST", `/v1/prompts/${prompt.body.id}/completions`, {
      headers: viaFake({ "x-gateway-trace-id": traceId }),
      body: { variables: { name: "Ada" } }
    })
    expect(completed.status).toBe(200)
    expect(await recordOf(traceId)).toMatchObject({
      route: "POST /v1/prompts/:id/completions",
      status: 200,
      provider: "openai",
      model: "gpt-4o-mini",
      usage: completed.body.body.usage
    })
  })

  it("records the calls an assistant run makes, in the background", async () => {
    const model = `run-model-${Date.now()}`
    const assistant = await call(gateway.baseUrl, "POST", "/v1/assistants", { body: { model } })
    const thread = await call(gateway.baseUrl, "POST", "/v1/threads", {
      body: { messages: [{ role: "user", content: "hello there" }] },
      headers: viaFake()
    })
    const run = await call(gateway.baseUrl, "POST", `/v1/threads/${thread.body.id}/runs`, {
      body: { assistant_id: assistant.body.id }
    })
    expect(run.status).toBe(200)
    let status = run.body.status
    for (let attempt = 0; attempt < 250 && ["queued", "in_progress"].includes(status); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      status = (await call(gateway.baseUrl, "GET", `/v1/threads/${thread.body.id}/runs/${run.body.id}`)).body.status
    }
    expect(status).toBe("completed")
    const listed = await logs(`?model=${model}`)
    expect(listed.body.data).toHaveLength(1)
    expect(listed.body.data[0]).toMatchObject({ route: "assistant run", status: 200, provider: "openai" })
    expect(listed.body.data[0].usage.total_tokens).toBeGreaterThan(0)
  })

  it("records each line of a batch, run by the server's worker", async () => {
    const model = `batch-model-${Date.now()}`
    const openai = new OpenAI({
      apiKey: "sk-upstream",
      baseURL: `${gateway.baseUrl}/v1`,
      defaultHeaders: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY, ...viaFake() },
      maxRetries: 0
    })
    const input = await Batches.uploadChatLines(openai, ["a", "b"], model)
    const batch = await Batches.runToEnd(openai, input.id)
    expect(batch.status).toBe("completed")
    const listed = await logs(`?model=${model}`)
    expect(listed.body.data).toHaveLength(2)
    for (const record of listed.body.data) expect(record).toMatchObject({ route: "batch line", status: 200 })
  })

  it("keeps request and response bodies only with GATEWAY_LOG_BODIES=true", async () => {
    const plain = await chat({ target: withBodies, body: { messages: [{ role: "user", content: "keep me" }] } })
    const kept = await recordOf(plain.traceId, withBodies)
    expect(kept.request_body).toEqual(chatBody({ messages: [{ role: "user", content: "keep me" }] }))
    expect(kept.response_body).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { content: "echo: keep me" } }]
    })

    const streamed = await chat({ target: withBodies, body: { stream: true } })
    const chunks = (await recordOf(streamed.traceId, withBodies)).response_body
    expect(Array.isArray(chunks)).toBe(true)
    expect(chunks[0]).toMatchObject({ object: "chat.completion.chunk" })

    // a Messages request keeps the client's own body and the Message it was answered; its stream, the chunks
    const messagesBody = { model: "gpt-4o-mini", max_tokens: 32, messages: [{ role: "user", content: "keep me too" }] }
    const messages = async (body: Record<string, unknown>) => {
      const response = await fetch(`${withBodies.baseUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-gateway-api-key": GatewayProcess.ADMIN_KEY, ...viaFake() },
        body: JSON.stringify(body)
      })
      expect(response.status).toBe(200)
      await response.text()
      return response.headers.get("x-gateway-trace-id") ?? ""
    }
    const message = await recordOf(await messages(messagesBody), withBodies)
    expect(message.request_body).toEqual(messagesBody)
    expect(message.response_body).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "text", text: "echo: keep me too" }]
    })
    const messageChunks = (await recordOf(await messages({ ...messagesBody, stream: true }), withBodies)).response_body
    expect(messageChunks[0]).toMatchObject({ object: "chat.completion.chunk" })

    // a body past the cap is kept as the text of its first 65,536 characters
    const long = "x".repeat(70_000)
    const cut = await chat({ target: withBodies, body: { messages: [{ role: "user", content: long }] } })
    const cutRecord = await recordOf(cut.traceId, withBodies)
    expect(typeof cutRecord.request_body).toBe("string")
    expect(cutRecord.request_body).toHaveLength(65_536)
  })
})

describe("GATEWAY_REQUEST_LOG=off", () => {
  it("records nothing, while the request is answered as usual", async () => {
    const off = await GatewayProcess.start({ GATEWAY_LOG_LEVEL: "warn", GATEWAY_REQUEST_LOG: "off" })
    try {
      const sent = await chat({ target: off })
      expect(sent.status).toBe(200)
      const listed = await logs(`?trace_id=${sent.traceId}`, { target: off })
      expect(listed.status).toBe(200)
      expect(listed.body.data).toEqual([])
      // the same request on a gateway that logs is found by the same query
      const logged = await chat()
      expect((await recordOf(logged.traceId)).trace_id).toBe(logged.traceId)
    } finally {
      await off.stop()
    }
  }, 60_000)
})

describe("GET /v1/logs", () => {
  it("filters by status, provider, model, api key and time, and pages newest first", async () => {
    const key = await createKey(gateway.baseUrl, ["completions", "logs.read"], { workspace: "ws-log-filters" })
    const sent = []
    for (let i = 0; i < 3; i++) sent.push(await chat({ key }))
    fake.enqueue(Behaviour.json(400, { error: { message: "no" } }))
    const refused = await chat({ key, body: { model: "gpt-4o" } })
    expect(refused.status).toBe(400)

    const all = await logs("", { key })
    expect(all.body.data.map((record: { trace_id: string }) => record.trace_id)).toEqual([
      refused.traceId,
      ...sent.map((s) => s.traceId).reverse()
    ])
    expect((await logs("?status=400", { key })).body.data.map((r: { trace_id: string }) => r.trace_id)).toEqual([
      refused.traceId
    ])
    expect((await logs("?model=gpt-4o", { key })).body.data).toHaveLength(1)
    expect((await logs("?provider=openai", { key })).body.data).toHaveLength(4)
    expect((await logs("?provider=anthropic", { key })).body.data).toHaveLength(0)
    const apiKeyId = all.body.data[0].api_key_id
    expect(apiKeyId).not.toBe("admin")
    expect((await logs(`?api_key_id=${apiKeyId}`, { key })).body.data).toHaveLength(4)
    expect((await logs("?api_key_id=admin", { key })).body.data).toHaveLength(0)
    const now = Math.floor(Date.now() / 1000)
    expect((await logs(`?from=${now - 60}&to=${now}`, { key })).body.data).toHaveLength(4)
    expect((await logs(`?to=${now - 3600}`, { key })).body.data).toHaveLength(0)
    expect((await logs(`?from=${now + 3600}`, { key })).body.data).toHaveLength(0)

    const first = await logs("?limit=3", { key })
    expect(first.body).toMatchObject({ object: "list", has_more: true })
    expect(first.body.data).toHaveLength(3)
    const second = await logs(`?limit=3&after=${first.body.last_id}`, { key })
    expect(second.body.has_more).toBe(false)
    expect(second.body.data.map((r: { trace_id: string }) => r.trace_id)).toEqual([sent[0]?.traceId])
  })

  it("refuses bad filters with a 400 naming the field", async () => {
    for (
      const [query, param] of [
        ["?status=abc", "status"],
        ["?status=42", "status"],
        ["?from=-1", "from"],
        ["?to=soon", "to"],
        ["?limit=0", "limit"],
        ["?order=up", "order"],
        ["?trace_id=", "trace_id"],
        ["?after=not-a-record", "after"]
      ]
    ) {
      const refused = await logs(query)
      expect(refused.status, query).toBe(400)
      expect(refused.body.error.param, query).toBe(param)
    }
  })

  it("answers only the caller's workspace, in the list and by id", async () => {
    const mine = await createKey(gateway.baseUrl, ["completions", "logs.read"], { workspace: "ws-log-mine" })
    const theirs = await createKey(gateway.baseUrl, ["completions", "logs.read"], { workspace: "ws-log-theirs" })
    const sent = await chat({ key: mine })
    const record = await recordOf(sent.traceId, gateway, mine)
    expect((await logs("", { key: theirs })).body.data).toEqual([])
    expect((await logs(`?trace_id=${sent.traceId}`, { key: theirs })).body.data).toEqual([])
    expect((await call(gateway.baseUrl, "GET", `/v1/logs/${record.id}`, { key: theirs })).status).toBe(404)
    expect((await call(gateway.baseUrl, "GET", `/v1/logs/${record.id}`, { key: mine })).status).toBe(200)
    // the admin key's workspace is another again
    expect((await logs(`?trace_id=${sent.traceId}`)).body.data).toEqual([])
  })

  it("needs the logs.read scope", async () => {
    const completionsOnly = await createKey(gateway.baseUrl, ["completions"])
    const reader = await createKey(gateway.baseUrl, ["logs.read"])
    expect((await logs("", { key: completionsOnly })).status).toBe(403)
    expect((await call(gateway.baseUrl, "GET", "/v1/logs/anything", { key: completionsOnly })).status).toBe(403)
    expect((await logs("", { key: reader })).status).toBe(200)
    expect((await logs("", { key: "" })).status).toBe(401)
  })
})

describe("GET /v1/logs/{id}", () => {
  it("answers the record with the feedback recorded against its trace id", async () => {
    const sent = await chat()
    const record = await recordOf(sent.traceId)
    const feedback = await call(gateway.baseUrl, "POST", "/v1/feedback", {
      body: { trace_id: sent.traceId, value: 5, metadata: { reviewer: "ada" } }
    })
    expect(feedback.status).toBe(200)
    const detail = await call(gateway.baseUrl, "GET", `/v1/logs/${record.id}`)
    expect(detail.status).toBe(200)
    expect(detail.body).toMatchObject({ ...record, feedback: [{ trace_id: sent.traceId, value: 5, source: "client" }] })
    const unknown = await call(gateway.baseUrl, "GET", "/v1/logs/no-such-record")
    expect(unknown.status).toBe(404)
  })
})

describe("the metrics the request log adds to GET /metrics", () => {
  const scrape = async () => (await fetch(`${gateway.baseUrl}/metrics`)).text()
  const valueOf = (text: string, pattern: RegExp): number | undefined => {
    const line = text.split("\n").find((l) => !l.startsWith("#") && pattern.test(l))
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1))
  }

  it("counts cost in US dollars by provider and model", async () => {
    const series =
      /^gateway_cost_usd_total\{(?=.*gen_ai_provider_name="openai")(?=.*gen_ai_request_model="gpt-4o-mini")/
    const before = valueOf(await scrape(), series) ?? 0
    const sent = await chat()
    const answered = JSON.parse(sent.text)
    const after = valueOf(await scrape(), series) ?? 0
    const cost = usd(answered.usage.prompt_tokens, answered.usage.completion_tokens) ?? 0
    expect(after - before).toBeCloseTo(cost, 12)
  })

  it("shows each target's circuit state, 2 once it is open", async () => {
    const config = {
      provider: "openai",
      api_key: `sk-circuit-${Date.now()}`,
      custom_host: fake.baseUrl,
      cb_config: { failure_threshold: 1, cooldown_interval: 60_000 }
    }
    fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    expect((await chat({ headers: { "x-gateway-config": JSON.stringify(config) } })).status).toBe(500)
    const circuits = await call(gateway.baseUrl, "GET", "/v1/circuits")
    const open = circuits.body.data.find((circuit: { state: string }) => circuit.state === "open")
    expect(open).toBeDefined()
    const series = new RegExp(
      `^gateway_circuit_state\\{(?=.*provider="openai")(?=.*credential_id="${open.credential_id}")`
    )
    expect(valueOf(await scrape(), series)).toBe(2)
  })

  it("counts policy refusals by kind of policy and status", async () => {
    const created = await call(gateway.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "limited", scopes: ["completions"] }
    })
    const { id, key } = created.body
    const policy = await call(gateway.baseUrl, "POST", "/v1/policies/rate-limits", {
      body: {
        name: "one a minute",
        conditions: [{ key: "api_key", value: id }],
        group_by: [{ key: "api_key" }],
        type: "requests",
        unit: "rpm",
        value: 1
      }
    })
    expect(policy.status).toBe(200)
    const series = /^gateway_policy_refusals_total\{(?=.*policy="rate_limit")(?=.*status="429")/
    const before = valueOf(await scrape(), series) ?? 0
    expect((await chat({ key })).status).toBe(200)
    expect((await chat({ key })).status).toBe(429)
    expect(valueOf(await scrape(), series)).toBe(before + 1)
  })
})
