import { Behaviour } from "@switchyard/fake-providers"
import { describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

const leaf = (extra: Record<string, unknown>) =>
  JSON.stringify({ provider: "openai", api_key: "sk-guard", custom_host: harness.fake.baseUrl, ...extra })

const ask = (config: string, content: string, headers: Record<string, string> = {}) =>
  chatVia(
    harness.gateway.baseUrl,
    ADMIN_KEY,
    { "x-gateway-config": config, ...headers },
    chatBody({
      messages: [{ role: "user", content }]
    })
  )

describe("hooks and guardrails through the server", () => {
  it("denies an input before it reaches the provider, with 446 and hook_results", async () => {
    const config = leaf({
      input_guardrails: [{ "default.contains": { words: ["forbidden"], operator: "none" }, deny: true }]
    })
    const answer = await ask(config, "this is forbidden")
    expect(answer.status).toBe(446)
    expect(answer.body.error.code).toBe("hook_denied")
    expect(answer.body.hook_results.before_request_hooks[0].verdict).toBe(false)
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("lets a failing check without deny through and reports it", async () => {
    const config = leaf({ input_guardrails: [{ "default.wordCount": { minWords: 50 } }] })
    const answer = await ask(config, "short")
    expect(answer.status).toBe(200)
    expect(answer.body.hook_results.before_request_hooks[0].verdict).toBe(false)
  })

  it("replaces a denied answer, whose content never reaches the client", async () => {
    const config = leaf({
      output_guardrails: [{ "default.contains": { words: ["echo"], operator: "none" }, deny: true }]
    })
    const answer = await ask(config, "say something")
    expect(answer.status).toBe(446)
    expect(answer.text).not.toContain("echo: say something")
  })

  it("redacts PII before the provider sees it", async () => {
    const config = leaf({
      before_request_hooks: [{
        id: "redact",
        type: "mutator",
        checks: [{ id: "default.regexReplace", parameters: { rule: "[\\w.]+@[\\w.]+", redactText: "[EMAIL]" } }]
      }]
    })
    const answer = await ask(config, "mail me at ada@example.com")
    expect(answer.status).toBe(200)
    const sent = JSON.stringify(harness.fake.requests[0]?.body)
    expect(sent).toContain("[EMAIL]")
    expect(sent).not.toContain("ada@example.com")
  })

  it("runs a stored guardrail named by its id", async () => {
    const created = await call(harness.gateway.baseUrl, "POST", "/v1/guardrails", {
      body: {
        name: "no secrets",
        checks: [{ id: "default.contains", parameters: { words: ["password"], operator: "none" } }],
        deny: true
      }
    })
    expect(created.status).toBe(200)
    expect(created.body.id).toMatch(/^gr-/)
    const config = leaf({ input_guardrails: [created.body.id] })
    expect((await ask(config, "my password is hunter2")).status).toBe(446)
    expect((await ask(config, "hello")).status).toBe(200)
    expect((await call(harness.gateway.baseUrl, "GET", `/v1/guardrails/${created.body.id}`)).status).toBe(200)
  })

  it("records feedback against the trace id, readable with GET /v1/feedback", async () => {
    const traceId = `trace-${Date.now()}`
    const config = leaf({
      input_guardrails: [{
        "default.wordCount": { minWords: 1 },
        on_success: { feedback: { value: 3, weight: 1 } }
      }]
    })
    expect((await ask(config, "hello there", { "x-gateway-trace-id": traceId })).status).toBe(200)
    const posted = await call(harness.gateway.baseUrl, "POST", "/v1/feedback", {
      body: { trace_id: traceId, value: -2 }
    })
    expect(posted.status).toBe(200)
    let listed = await call(harness.gateway.baseUrl, "GET", `/v1/feedback?trace_id=${traceId}`)
    for (let i = 0; i < 20 && listed.body.data.length < 2; i++) {
      listed = await call(harness.gateway.baseUrl, "GET", `/v1/feedback?trace_id=${traceId}`)
    }
    const values = listed.body.data.map((entry: { value: number }) => entry.value).sort()
    expect(values).toEqual([-2, 3])
  })

  it("holds a streamed answer back until a denying output guardrail's verdict", async () => {
    const config = leaf({
      output_guardrails: [{ "default.contains": { words: ["echo"], operator: "none" }, deny: true }]
    })
    const response = await fetch(`${harness.gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": ADMIN_KEY, "x-gateway-config": config },
      body: JSON.stringify(chatBody({ messages: [{ role: "user", content: "say something" }], stream: true }))
    })
    const text = await response.text()
    expect(response.status).toBe(446)
    expect(text).not.toContain("echo")
  })

  it("streams through a passing output guardrail", async () => {
    const config = leaf({
      output_guardrails: [{ "default.contains": { words: ["forbidden"], operator: "none" }, deny: true }]
    })
    const response = await fetch(`${harness.gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": ADMIN_KEY, "x-gateway-config": config },
      body: JSON.stringify(chatBody({ messages: [{ role: "user", content: "say something" }], stream: true }))
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toContain("data: [DONE]")
  })

  it("fails a webhook check whose server is down, and denies with it", async () => {
    const config = leaf({
      input_guardrails: [{ "default.webhook": { webhookURL: "http://127.0.0.1:9/verdict", timeout: 500 }, deny: true }]
    })
    const answer = await ask(config, "hello")
    expect(answer.status).toBe(446)
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("lets a down webhook pass when its check says failOnError: false", async () => {
    const config = leaf({
      input_guardrails: [{
        "default.webhook": { webhookURL: "http://127.0.0.1:9/verdict", timeout: 500, failOnError: false },
        deny: true
      }]
    })
    expect((await ask(config, "hello")).status).toBe(200)
  })
})

describe("hook results in the request log", () => {
  let sent = 0
  /** A chat completion under a trace id of its own, and the log's one record of it once written. */
  const askAndRecord = async (config: string, content: string, body: Record<string, unknown> = {}) => {
    const traceId = `hooks-${Date.now()}-${sent++}`
    const answer = await call(harness.gateway.baseUrl, "POST", "/v1/chat/completions", {
      key: ADMIN_KEY,
      headers: { "x-gateway-config": config, "x-gateway-trace-id": traceId },
      body: chatBody({ messages: [{ role: "user", content }], ...body })
    })
    const listed = await call(harness.gateway.baseUrl, "GET", `/v1/logs?trace_id=${traceId}`)
    expect(listed.status).toBe(200)
    expect(listed.body.data).toHaveLength(1)
    return { answer, record: listed.body.data[0] }
  }

  it("records each hook's id, stage, verdict, checks and time, in the list and in the detail", async () => {
    const config = leaf({
      input_guardrails: [{ id: "long-enough", "default.wordCount": { minWords: 50 } }],
      output_guardrails: [{ id: "no-secret", "default.contains": { words: ["secret"], operator: "none" } }]
    })
    const { answer, record } = await askAndRecord(config, "short")
    expect(answer.status).toBe(200)
    expect(record.hook_results).toMatchObject([
      {
        id: "long-enough",
        stage: "before",
        target_path: "config",
        type: "guardrail",
        verdict: false,
        deny: false,
        checks: [{ id: "default.wordCount", verdict: false }]
      },
      {
        id: "no-secret",
        stage: "after",
        verdict: true,
        deny: false,
        checks: [{ id: "default.contains", verdict: true }]
      }
    ])
    for (const hook of record.hook_results) expect(hook.execution_time).toBeGreaterThanOrEqual(0)
    // no check data in the log: it may quote the request or the answer
    expect(JSON.stringify(record.hook_results)).not.toContain("data")
    const detail = await call(harness.gateway.baseUrl, "GET", `/v1/logs/${record.id}`)
    expect(detail.body.hook_results).toEqual(record.hook_results)
  })

  it("records the hook that denied a request, which never reached the provider", async () => {
    const config = leaf({
      input_guardrails: [{
        id: "no-forbidden",
        "default.contains": { words: ["forbidden"], operator: "none" },
        deny: true
      }]
    })
    const { answer, record } = await askAndRecord(config, "this is forbidden")
    expect(answer.status).toBe(446)
    expect(record).toMatchObject({
      status: 446,
      hook_results: [{ id: "no-forbidden", stage: "before", verdict: false, deny: true }]
    })
    expect(harness.fake.requests).toHaveLength(0)
  })

  it("records the fallback target whose hooks ran", async () => {
    harness.fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    const target = JSON.parse(leaf({ input_guardrails: [{ id: "counted", "default.wordCount": { minWords: 1 } }] }))
    const config = JSON.stringify({ strategy: { mode: "fallback" }, targets: [target, target] })
    const { record } = await askAndRecord(config, "two targets")
    expect(record.hook_results.map((hook: { target_path: string }) => hook.target_path)).toEqual([
      "config.targets[0]",
      "config.targets[1]"
    ])
  })

  it("records a streamed answer's output checks, which run once the stream has ended", async () => {
    const config = leaf({
      output_guardrails: [{ id: "judged-after", "default.contains": { words: ["secret"], operator: "none" } }]
    })
    const { answer, record } = await askAndRecord(config, "stream it", { stream: true })
    expect(answer.status).toBe(200)
    expect(record.hook_results).toMatchObject([{ id: "judged-after", stage: "after", verdict: true }])
  })

  it("records the hooks of a prompt completion, which runs the pipeline in process", async () => {
    const prompt = await call(harness.gateway.baseUrl, "POST", "/v1/prompts", {
      body: { name: "guarded", model: "gpt-4o-mini", template: [{ role: "user", content: "hi {{name}}" }] }
    })
    expect(prompt.status).toBe(200)
    const traceId = `hooks-prompt-${Date.now()}`
    const config = leaf({ input_guardrails: [{ id: "prompt-check", "default.wordCount": { minWords: 1 } }] })
    const completed = await call(harness.gateway.baseUrl, "POST", `/v1/prompts/${prompt.body.id}/completions`, {
      headers: { "x-gateway-config": config, "x-gateway-trace-id": traceId },
      body: { variables: { name: "Ada" } }
    })
    expect(completed.status).toBe(200)
    const listed = await call(harness.gateway.baseUrl, "GET", `/v1/logs?trace_id=${traceId}`)
    expect(listed.body.data).toMatchObject([{
      route: "POST /v1/prompts/:id/completions",
      hook_results: [{ id: "prompt-check", stage: "before", verdict: true }]
    }])
  })

  it("records no hook results for a request without hooks", async () => {
    const { record } = await askAndRecord(leaf({}), "plain")
    expect(record.hook_results).toEqual([])
  })
})
