import { Behaviour, FakeAnthropic } from "@switchyard/fake-providers"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import { useGatewayAndFake } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { tokenBudget, twentyTokens } from "./support/Usage.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl

let anthropic: FakeAnthropic.FakeAnthropic
beforeAll(async () => {
  anthropic = await FakeAnthropic.start({ apiKey: "sk-ant-test" })
})
afterAll(() => anthropic?.close())

/** The official client, selecting the OpenAI fake (or `headers`' provider) for the threads it creates. */
const client = (headers: Record<string, string> = {}, apiKey = "sk-upstream") =>
  new OpenAI({
    apiKey,
    baseURL: `${base()}/v1`,
    defaultHeaders: {
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl,
      ...headers
    },
    maxRetries: 0
  })

const viaFake = () => ({
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": harness.fake.baseUrl,
  authorization: "Bearer sk-upstream"
})

const poll = { pollIntervalMs: 20 }

const createThread = async (body: unknown = {}, headers: Record<string, string> = viaFake()) => {
  const created = await call(base(), "POST", "/v1/threads", { body, headers })
  if (created.status !== 200) throw new Error(`creating a thread failed: ${created.status} ${created.text}`)
  return String(created.body.id)
}

const createAssistant = async (body: unknown = { model: "gpt-4o-mini", instructions: "Be brief." }) => {
  const created = await call(base(), "POST", "/v1/assistants", { body })
  if (created.status !== 200) throw new Error(`creating an assistant failed: ${created.status} ${created.text}`)
  return String(created.body.id)
}

/** Polls a run over HTTP until it has ended. */
const settled = async (threadId: string, runId: string) => {
  for (let attempt = 0; attempt < 250; attempt++) {
    const run = await call(base(), "GET", `/v1/threads/${threadId}/runs/${runId}`)
    if (!["queued", "in_progress", "cancelling"].includes(run.body.status)) return run.body
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`run ${runId} did not end`)
}

describe("assistants and threads through the openai client", () => {
  it("creates, reads, modifies, lists and deletes an assistant", async () => {
    const openai = client()
    const created = await openai.beta.assistants.create({
      model: "gpt-4o-mini",
      name: "helper",
      instructions: "Be brief.",
      metadata: { team: "search" }
    })
    expect(created).toMatchObject({ object: "assistant", model: "gpt-4o-mini", name: "helper", tools: [] })
    expect(await openai.beta.assistants.retrieve(created.id)).toEqual(created)
    const updated = await openai.beta.assistants.update(created.id, { name: "helper 2" })
    expect(updated).toEqual({ ...created, name: "helper 2" })
    const listed = await openai.beta.assistants.list({ limit: 100 })
    expect(listed.data.map((assistant) => assistant.id)).toContain(created.id)
    expect(await openai.beta.assistants.delete(created.id)).toEqual({
      id: created.id,
      object: "assistant.deleted",
      deleted: true
    })
    expect((await call(base(), "GET", `/v1/assistants/${created.id}`)).status).toBe(404)
  })

  it("creates a thread with its first messages and metadata, and runs it to a completed answer", async () => {
    const openai = client()
    const assistant = await openai.beta.assistants.create({ model: "gpt-4o-mini", instructions: "Be brief." })
    const thread = await openai.beta.threads.create({
      messages: [{ role: "user", content: "hello there" }],
      metadata: { ticket: "42" }
    })
    expect(thread).toMatchObject({ object: "thread", metadata: { ticket: "42" } })
    const run = await openai.beta.threads.runs.createAndPoll(thread.id, { assistant_id: assistant.id }, poll)
    expect(run).toMatchObject({ status: "completed", assistant_id: assistant.id, thread_id: thread.id })
    expect(run.usage?.total_tokens).toBeGreaterThan(0)
    const messages = await openai.beta.threads.messages.list(thread.id, { order: "asc" })
    expect(messages.data.map((message) => message.role)).toEqual(["user", "assistant"])
    const answer = messages.data[1]
    expect(answer).toMatchObject({ status: "completed", run_id: run.id, assistant_id: assistant.id })
    expect(answer?.content).toEqual([{ type: "text", text: { value: "echo: hello there", annotations: [] } }])
    const steps = await openai.beta.threads.runs.steps.list(run.id, { thread_id: thread.id })
    expect(steps.data).toHaveLength(1)
    expect(steps.data[0]).toMatchObject({
      type: "message_creation",
      status: "completed",
      step_details: { type: "message_creation", message_creation: { message_id: answer?.id } }
    })
    const step = await openai.beta.threads.runs.steps.retrieve(steps.data[0]?.id ?? "", {
      thread_id: thread.id,
      run_id: run.id
    })
    expect(step).toEqual(steps.data[0])
    // what reached the provider: the instructions, then the thread, with the thread's key
    const sent = harness.fake.requests.at(-1)
    expect(sent?.headers.authorization).toBe("Bearer sk-upstream")
    expect(sent?.body).toMatchObject({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello there" }]
    })
    expect((await openai.beta.threads.runs.list(thread.id)).data.map((listed) => listed.id)).toEqual([run.id])
    const updated = await openai.beta.threads.runs.update(run.id, { thread_id: thread.id, metadata: { seen: "yes" } })
    expect(updated).toEqual({ ...run, metadata: { seen: "yes" } })
  })

  it("creates a thread and its run in one call, with the thread's provider selection", async () => {
    const openai = client()
    const assistant = await openai.beta.assistants.create({ model: "gpt-4o-mini" })
    const run = await openai.beta.threads.createAndRunPoll({
      assistant_id: assistant.id,
      thread: { messages: [{ role: "user", content: "one call" }], metadata: { via: "createAndRun" } }
    }, poll)
    expect(run.status).toBe("completed")
    expect((await openai.beta.threads.retrieve(run.thread_id)).metadata).toEqual({ via: "createAndRun" })
    const messages = await openai.beta.threads.messages.list(run.thread_id, { order: "asc" })
    const answer = messages.data[1]?.content[0]
    expect(answer?.type === "text" ? answer.text.value : "").toBe("echo: one call")
    const unknown = await call(base(), "POST", "/v1/threads/runs", {
      body: { assistant_id: "asst_nope", thread: { messages: [{ role: "user", content: "x" }] } },
      headers: viaFake()
    })
    expect([unknown.status, unknown.body.error.param]).toEqual([400, "assistant_id"])
  })

  it("adds, reads, modifies and deletes messages, and keeps the thread's metadata editable", async () => {
    const openai = client()
    const thread = await openai.beta.threads.create()
    const message = await openai.beta.threads.messages.create(thread.id, { role: "user", content: "note" })
    expect(message).toMatchObject({ object: "thread.message", role: "user", run_id: null, assistant_id: null })
    expect(await openai.beta.threads.messages.retrieve(message.id, { thread_id: thread.id })).toEqual(message)
    const modified = await openai.beta.threads.messages.update(message.id, {
      thread_id: thread.id,
      metadata: { seen: "yes" }
    })
    expect(modified).toEqual({ ...message, metadata: { seen: "yes" } })
    expect(await openai.beta.threads.update(thread.id, { metadata: { a: "b" } })).toMatchObject({
      metadata: { a: "b" }
    })
    await openai.beta.threads.messages.delete(message.id, { thread_id: thread.id })
    expect((await openai.beta.threads.messages.list(thread.id)).data).toEqual([])
    expect(await openai.beta.threads.delete(thread.id)).toEqual({
      id: thread.id,
      object: "thread.deleted",
      deleted: true
    })
    expect((await call(base(), "GET", `/v1/threads/${thread.id}`)).status).toBe(404)
  })

  it("pages a thread's messages with limit, after and before, as the client's auto-paging follows", async () => {
    const openai = client()
    const thread = await openai.beta.threads.create({
      messages: ["1", "2", "3", "4", "5"].map((content) => ({ role: "user" as const, content }))
    })
    const texts: Array<string> = []
    for await (const message of openai.beta.threads.messages.list(thread.id, { limit: 2, order: "asc" })) {
      const part = message.content[0]
      texts.push(part?.type === "text" ? part.text.value : "")
    }
    expect(texts).toEqual(["1", "2", "3", "4", "5"])
    const page = await call(base(), "GET", `/v1/threads/${thread.id}/messages?limit=2`)
    expect(page.body).toMatchObject({ object: "list", has_more: true })
    expect(page.body.first_id).toBe(page.body.data[0].id)
    expect(page.body.last_id).toBe(page.body.data[1].id)
    const back = await call(base(), "GET", `/v1/threads/${thread.id}/messages?limit=5&before=${page.body.last_id}`)
    expect(back.body).toMatchObject({ data: [{ id: page.body.first_id }], has_more: false })
  })

  it("runs a thread on Anthropic, the provider it was created with", async () => {
    const openai = client(
      { "x-gateway-provider": "anthropic", "x-gateway-custom-host": anthropic.baseUrl },
      "sk-ant-test"
    )
    const assistant = await openai.beta.assistants.create({ model: "claude-sonnet-4-5", instructions: "Be brief." })
    const thread = await openai.beta.threads.create({ messages: [{ role: "user", content: "hello" }] })
    const run = await openai.beta.threads.runs.createAndPoll(thread.id, { assistant_id: assistant.id }, poll)
    expect(run.status).toBe("completed")
    const answer = (await openai.beta.threads.messages.list(thread.id)).data[0]
    const part = answer?.content[0]
    expect(part?.type === "text" ? part.text.value.length : 0).toBeGreaterThan(0)
    const sent = anthropic.requests.at(-1)
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-test")
    expect(sent?.body).toMatchObject({ model: "claude-sonnet-4-5", system: [{ type: "text", text: "Be brief." }] })
  })
})

describe("an assistant's own provider (extensions.md: provider/integration/config)", () => {
  it("runs on the assistant's config rather than the thread's provider, and never shows its key", async () => {
    const created = await call(base(), "POST", "/v1/assistants", {
      body: {
        model: "claude-sonnet-4-5",
        instructions: "Be brief.",
        config: { provider: "anthropic", api_key: "sk-ant-test", custom_host: anthropic.baseUrl }
      }
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ provider: null, integration: null, config: null })
    expect(created.text).not.toContain("sk-ant-test")
    const before = anthropic.requests.length
    const threadId = await createThread({ messages: [{ role: "user", content: "hello" }] })
    const run = await call(base(), "POST", `/v1/threads/${threadId}/runs`, {
      body: { assistant_id: created.body.id },
      headers: viaFake()
    })
    expect(run.status).toBe(200)
    expect((await settled(threadId, run.body.id)).status).toBe("completed")
    expect(anthropic.requests.length).toBe(before + 1)
    expect(anthropic.requests.at(-1)?.headers["x-api-key"]).toBe("sk-ant-test")
    expect((await call(base(), "GET", `/v1/assistants/${created.body.id}`)).text).not.toContain("sk-ant-test")
  })

  it("goes back to the thread's provider once its own is cleared", async () => {
    const assistantId = await createAssistant({
      model: "claude-sonnet-4-5",
      config: { provider: "anthropic", api_key: "sk-ant-test", custom_host: anthropic.baseUrl }
    })
    const cleared = await call(base(), "POST", `/v1/assistants/${assistantId}`, { body: { config: null } })
    expect(cleared.status).toBe(200)
    const before = anthropic.requests.length
    const threadId = await createThread({ messages: [{ role: "user", content: "hello" }] })
    const run = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    expect((await settled(threadId, run.body.id)).status).toBe("completed")
    expect(anthropic.requests.length).toBe(before)
    expect(harness.fake.requests.at(-1)?.headers.authorization).toBe("Bearer sk-upstream")
  })

  it.each([
    [{ model: "m", provider: "openai", integration: "prod" }, "integration", /not both/],
    [{ model: "m", config: { strategy: { mode: "nope" } } }, "config", /.+/],
    [{ model: "m", config: "not-a-config-id" }, "config", /pc-/]
  ])("refuses %j naming %s", async (body, param, rule) => {
    const answer = await call(base(), "POST", "/v1/assistants", { body })
    expect(answer.status).toBe(400)
    expect(String(answer.body.error.param)).toContain(param)
    expect(answer.body.error.message).toMatch(rule)
  })
})

describe("streamed runs", () => {
  it("streams the run's events to the client's run stream, ending with the completed run", async () => {
    const openai = client()
    const assistant = await openai.beta.assistants.create({ model: "gpt-4o-mini" })
    const thread = await openai.beta.threads.create({ messages: [{ role: "user", content: "stream me" }] })
    const events: Array<string> = []
    const stream = openai.beta.threads.runs.stream(thread.id, { assistant_id: assistant.id })
    for await (const event of stream) events.push(event.event)
    // the provider streams the answer, and each of its chunks is a delta
    expect(events.filter((event) => event === "thread.message.delta").length).toBeGreaterThan(1)
    expect(events.filter((event, index) => event !== events[index - 1])).toEqual([
      "thread.run.created",
      "thread.run.queued",
      "thread.run.in_progress",
      "thread.run.step.created",
      "thread.run.step.in_progress",
      "thread.message.created",
      "thread.message.in_progress",
      "thread.message.delta",
      "thread.message.completed",
      "thread.run.step.completed",
      "thread.run.completed"
    ])
    const run = await stream.finalRun()
    expect(run.status).toBe("completed")
    const messages = await stream.finalMessages()
    const part = messages[0]?.content[0]
    expect(part?.type === "text" ? part.text.value : "").toBe("echo: stream me")
  })

  it("ends the raw stream with event: done and data: [DONE]", async () => {
    const assistantId = await createAssistant()
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] })
    const response = await fetch(`${base()}/v1/threads/${threadId}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-gateway-api-key": GatewayProcess.ADMIN_KEY },
      body: JSON.stringify({ assistant_id: assistantId, stream: true })
    })
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const text = await response.text()
    expect(text.startsWith("event: thread.run.created\ndata: {")).toBe(true)
    const names = text.split("\n\n").filter((event) => event !== "").map((event) => event.split("\n")[0])
    expect(names.slice(-2)).toEqual(["event: thread.run.completed", "event: done"])
    expect(text.endsWith("event: done\ndata: [DONE]\n\n")).toBe(true)
  })
})

describe("function tools", () => {
  it("waits in requires_action and goes on with the outputs submitted through the client", async () => {
    const openai = client()
    const assistant = await openai.beta.assistants.create({
      model: "gpt-4o-mini",
      tools: [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: {} } } }]
    })
    const thread = await openai.beta.threads.create({ messages: [{ role: "user", content: "weather in Oslo?" }] })
    harness.fake.enqueue(Behaviour.json(200, {
      id: "chatcmpl-tools",
      object: "chat.completion",
      created: 1,
      model: "gpt-4o-mini",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_w", type: "function", function: { name: "weather", arguments: "{}" } }]
        },
        finish_reason: "tool_calls"
      }],
      usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 }
    }))
    const waiting = await openai.beta.threads.runs.createAndPoll(thread.id, { assistant_id: assistant.id }, poll)
    expect(waiting.status).toBe("requires_action")
    expect(waiting.required_action?.submit_tool_outputs.tool_calls.map((call) => call.id)).toEqual(["call_w"])
    const wrong = await call(base(), "POST", `/v1/threads/${thread.id}/runs/${waiting.id}/submit_tool_outputs`, {
      body: { tool_outputs: [{ tool_call_id: "call_x", output: "?" }] }
    })
    expect([wrong.status, wrong.body.error.param]).toEqual([400, "tool_outputs"])
    // the fake calls a tool whenever the request has tools: the answer after the output is scripted
    harness.fake.enqueue(Behaviour.json(200, {
      id: "chatcmpl-after",
      object: "chat.completion",
      created: 2,
      model: "gpt-4o-mini",
      choices: [{ index: 0, message: { role: "assistant", content: "Sunny in Oslo." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 }
    }))
    const done = await openai.beta.threads.runs.submitToolOutputsAndPoll(waiting.id, {
      thread_id: thread.id,
      tool_outputs: [{ tool_call_id: "call_w", output: "sunny" }]
    }, poll)
    expect([done.status, done.usage?.total_tokens]).toEqual(["completed", 23])
    expect(harness.fake.requests.at(-1)?.body).toMatchObject({
      messages: [
        { role: "user", content: "weather in Oslo?" },
        { role: "assistant", tool_calls: [{ id: "call_w" }] },
        { role: "tool", tool_call_id: "call_w", content: "sunny" }
      ]
    })
    const steps = await openai.beta.threads.runs.steps.list(done.id, { thread_id: thread.id, order: "asc" })
    expect(steps.data.map((step) => [step.type, step.status])).toEqual([
      ["tool_calls", "completed"],
      ["message_creation", "completed"]
    ])
  })
})

describe("runs that do not complete", () => {
  it("fails the run and its step with server_error when the provider answers 500", async () => {
    const assistantId = await createAssistant()
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] })
    harness.fake.enqueue(Behaviour.json(500, { error: { message: "upstream broke" } }))
    const created = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    expect(created.body.status).toBe("queued")
    const run = await settled(threadId, created.body.id)
    expect(run).toMatchObject({ status: "failed", last_error: { code: "server_error" } })
    expect(run.last_error.message).toContain("upstream broke")
    const steps = await call(base(), "GET", `/v1/threads/${threadId}/runs/${run.id}/steps`)
    expect(steps.body.data[0]).toMatchObject({ status: "failed", last_error: run.last_error })
  })

  it("fails with rate_limit_exceeded when the provider answers 429", async () => {
    const assistantId = await createAssistant()
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] })
    harness.fake.enqueue(Behaviour.json(429, { error: { message: "slow down" } }))
    const created = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    expect(await settled(threadId, created.body.id)).toMatchObject({
      status: "failed",
      last_error: { code: "rate_limit_exceeded" }
    })
  })

  it("makes the message incomplete with content_filter when the thread's config denies the answer", async () => {
    const config = {
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      output_guardrails: [{ "default.contains": { words: ["echo"], operator: "none" }, deny: true }]
    }
    const assistantId = await createAssistant()
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] }, {
      "x-gateway-config": JSON.stringify(config)
    })
    const created = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    const run = await settled(threadId, created.body.id)
    expect(run).toMatchObject({ status: "incomplete", incomplete_details: { reason: "content_filter" } })
    const messages = await call(base(), "GET", `/v1/threads/${threadId}/messages?run_id=${run.id}`)
    expect(messages.body.data).toHaveLength(1)
    expect(messages.body.data[0]).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "content_filter" },
      content: []
    })
    expect(JSON.stringify(messages.body)).not.toContain("echo")
  })

  it("cancels a run the provider has not answered yet", async () => {
    const assistantId = await createAssistant()
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] })
    harness.fake.enqueue(Behaviour.stall())
    const created = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    const busy = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    expect([busy.status, busy.body.error.param]).toEqual([400, "thread_id"])
    const message = await call(base(), "POST", `/v1/threads/${threadId}/messages`, {
      body: { role: "user", content: "meanwhile" }
    })
    expect([message.status, message.body.error.param]).toEqual([400, "thread_id"])
    const cancelled = await call(base(), "POST", `/v1/threads/${threadId}/runs/${created.body.id}/cancel`)
    expect(cancelled.body).toMatchObject({ status: "cancelled" })
    expect(cancelled.body.cancelled_at).toBeTypeOf("number")
    const again = await call(base(), "POST", `/v1/threads/${threadId}/runs/${created.body.id}/cancel`)
    expect([again.status, again.body.error.param]).toEqual([400, "run_id"])
  })
})

describe("usage limits", () => {
  it("counts a run's tokens against the creator's budget and fails the run past it", async () => {
    const created = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "assistants budget", scopes: ["assistants", "policies.read", "policies.write"] }
    })
    const key = String(created.body.key)
    const policy = await call(base(), "POST", "/v1/policies/usage-limits", {
      key,
      body: tokenBudget(created.body.id, 20, "runs budget")
    })
    expect(policy.status, policy.text).toBe(200)
    const assistant = await call(base(), "POST", "/v1/assistants", { key, body: { model: "gpt-4o-mini" } })
    const thread = await call(base(), "POST", "/v1/threads", {
      key,
      body: { messages: [{ role: "user", content: "hi" }] },
      headers: viaFake()
    })
    const runOnce = async () => {
      const run = await call(base(), "POST", `/v1/threads/${thread.body.id}/runs`, {
        key,
        body: { assistant_id: assistant.body.id }
      })
      return settled(String(thread.body.id), String(run.body.id))
    }
    harness.fake.enqueue(twentyTokens)
    expect((await runOnce()).status).toBe("completed")
    const usage = await call(base(), "GET", `/v1/policies/usage-limits/${policy.body.id}?include_usage=true`, { key })
    expect(Object.values(usage.body.value_key_usage_map)).toMatchObject([{ usage: 20 }])
    const refused = await runOnce()
    expect(refused).toMatchObject({ status: "failed", last_error: { code: "rate_limit_exceeded" } })
    expect(refused.last_error.message).toContain("usage limit reached")
    expect(harness.fake.requests).toHaveLength(1)
  })
})

describe("bad input answers 400 naming the field", () => {
  const badLists = [
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=ten", "limit"],
    ["order=sideways", "order"],
    ["after=msg_unknown", "after"],
    ["before=msg_unknown", "before"]
  ] as const

  it.each(badLists)("GET messages?%s", async (query, param) => {
    const threadId = await createThread()
    const answer = await call(base(), "GET", `/v1/threads/${threadId}/messages?${query}`)
    expect([answer.status, answer.body.error.param]).toEqual([400, param])
  })

  it("applies the list rules to assistants, runs and steps too, and answers 404 for unknown ids", async () => {
    const threadId = await createThread({ messages: [{ role: "user", content: "hi" }] })
    const assistantId = await createAssistant()
    const run = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body: { assistant_id: assistantId } })
    await settled(threadId, String(run.body.id))
    for (
      const path of [
        "/v1/assistants",
        `/v1/threads/${threadId}/runs`,
        `/v1/threads/${threadId}/runs/${run.body.id}/steps`
      ]
    ) {
      const tooMany = await call(base(), "GET", `${path}?limit=101`)
      expect([tooMany.status, tooMany.body.error.param], path).toEqual([400, "limit"])
      const unknown = await call(base(), "GET", `${path}?after=nope`)
      expect([unknown.status, unknown.body.error.param], path).toEqual([400, "after"])
      const one = await call(base(), "GET", `${path}?limit=1&order=asc`)
      expect([one.status, one.body.data.length, one.body.first_id], path).toEqual([200, 1, one.body.last_id])
    }
    for (
      const path of [
        `/v1/threads/${threadId}/runs/run_nope`,
        `/v1/threads/${threadId}/runs/${run.body.id}/steps/step_nope`,
        `/v1/threads/${threadId}/messages/msg_nope`,
        `/v1/threads/thread_nope/runs`,
        "/v1/assistants/asst_nope"
      ]
    ) {
      expect((await call(base(), "GET", path)).status, path).toBe(404)
    }
  })

  it("accepts the bounds of limit, 1 and 100", async () => {
    const threadId = await createThread()
    for (const limit of [1, 100]) {
      expect((await call(base(), "GET", `/v1/threads/${threadId}/messages?limit=${limit}`)).status).toBe(200)
    }
  })

  const tooMuchMetadata = Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, "v"]))
  const badBodies = [
    ["/v1/assistants", { model: "m", metadata: tooMuchMetadata }, "metadata"],
    ["/v1/assistants", { model: "m", metadata: { ["k".repeat(65)]: "v" } }, `metadata.${"k".repeat(65)}`],
    ["/v1/assistants", { model: "m", metadata: { k: "v".repeat(513) } }, "metadata.k"],
    ["/v1/assistants", { model: "" }, "model"],
    ["/v1/assistants", { instructions: "no model" }, "model"],
    ["/v1/assistants", { model: "m", temperature: 3 }, "temperature"],
    ["/v1/assistants", { model: "m", modle: "typo" }, "modle"],
    ["/v1/threads", { metadata: { k: 1 } }, "metadata.k"],
    ["/v1/threads", { messages: [{ role: "system", content: "x" }] }, "messages[0].role"]
  ] as const

  it.each(badBodies)("POST %s %j", async (path, body, param) => {
    const answer = await call(base(), "POST", path, { body, headers: viaFake() })
    expect([answer.status, answer.body.error.param]).toEqual([400, param])
  })

  it("accepts 16 metadata pairs with 64-character keys and 512-character values", async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 16 }, (_, index) => [`${index}`.padEnd(64, "k"), "v".repeat(512)])
    )
    const answer = await call(base(), "POST", "/v1/assistants", { body: { model: "m", metadata } })
    expect(answer.status).toBe(200)
    expect(answer.body.metadata).toEqual(metadata)
  })

  it("refuses a thread that selects no provider", async () => {
    const answer = await call(base(), "POST", "/v1/threads", { body: {} })
    expect([answer.status, answer.body.error.param]).toEqual([400, "x-gateway-provider"])
  })

  it("refuses a thread whose config is not valid, naming it, before any run", async () => {
    const notJson = await call(base(), "POST", "/v1/threads", { body: {}, headers: { "x-gateway-config": "{nope" } })
    expect([notJson.status, notJson.body.error.param]).toEqual([400, "x-gateway-config"])
    const badRetry = await call(base(), "POST", "/v1/threads", {
      body: {},
      headers: { "x-gateway-config": JSON.stringify({ provider: "openai", retry: { attempts: 9 } }) }
    })
    expect([badRetry.status, badRetry.body.error.param]).toEqual([400, "config.retry.attempts"])
  })

  it("refuses a message body without content, and a message metadata beyond its bounds", async () => {
    const threadId = await createThread()
    const missing = await call(base(), "POST", `/v1/threads/${threadId}/messages`, { body: { role: "user" } })
    expect([missing.status, missing.body.error.param]).toEqual([400, "content"])
    const message = await call(base(), "POST", `/v1/threads/${threadId}/messages`, {
      body: { role: "user", content: "x" }
    })
    const modified = await call(base(), "POST", `/v1/threads/${threadId}/messages/${message.body.id}`, {
      body: { metadata: tooMuchMetadata }
    })
    expect([modified.status, modified.body.error.param]).toEqual([400, "metadata"])
  })

  it("refuses a run of an unknown assistant or with an unknown field", async () => {
    const threadId = await createThread()
    const assistantId = await createAssistant()
    const cases = [
      [{ assistant_id: "asst_unknown" }, "assistant_id"],
      [{ assistant_id: assistantId, truncation: "auto" }, "truncation"],
      [{ assistant_id: assistantId, stream: "yes" }, "stream"]
    ] as const
    for (const [body, param] of cases) {
      const answer = await call(base(), "POST", `/v1/threads/${threadId}/runs`, { body })
      expect([answer.status, answer.body.error.param]).toEqual([400, param])
    }
  })
})

describe("workspaces and scopes", () => {
  it("answers 404 for another workspace's thread and 403 without the assistants scope", async () => {
    const threadId = await createThread()
    const other = await createKey(base(), ["assistants"], { workspace: "ws-other" })
    expect((await call(base(), "GET", `/v1/threads/${threadId}`, { key: other })).status).toBe(404)
    expect((await call(base(), "GET", `/v1/threads/${threadId}/messages`, { key: other })).status).toBe(404)
    const noScope = await createKey(base(), ["completions"])
    expect((await call(base(), "GET", `/v1/threads/${threadId}`, { key: noScope })).status).toBe(403)
    expect((await call(base(), "GET", "/v1/assistants", { key: noScope })).status).toBe(403)
  })
})

describe("a restart during a run", () => {
  it("on the embedded SQLite data dir, ends the run it interrupted as failed, with the reason", async () => {
    const first = await GatewayProcess.start()
    const second = { process: undefined as GatewayProcess.GatewayProcess | undefined }
    try {
      const headers = viaFake()
      const assistant = await call(first.baseUrl, "POST", "/v1/assistants", { body: { model: "gpt-4o-mini" } })
      const thread = await call(first.baseUrl, "POST", "/v1/threads", {
        body: { messages: [{ role: "user", content: "hi" }] },
        headers
      })
      harness.fake.enqueue(Behaviour.stall())
      const run = await call(first.baseUrl, "POST", `/v1/threads/${thread.body.id}/runs`, {
        body: { assistant_id: assistant.body.id }
      })
      // the provider has the call when the process dies
      for (let attempt = 0; attempt < 250 && harness.fake.requests.length === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(harness.fake.requests).toHaveLength(1)
      await first.stop("SIGKILL")
      second.process = await GatewayProcess.start({ GATEWAY_DATA_DIR: first.dataDir })
      // the new process takes the run over as it starts, in the background
      const runPath = `/v1/threads/${thread.body.id}/runs/${run.body.id}`
      let after = await call(second.process.baseUrl, "GET", runPath)
      for (let attempt = 0; attempt < 100 && after.body.status === "in_progress"; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        after = await call(second.process.baseUrl, "GET", runPath)
      }
      expect(after.body).toMatchObject({ status: "failed", last_error: { code: "server_error" } })
      expect(after.body.last_error.message).toContain("stopped before it ended")
      // the thread takes a new run, which completes on the restarted process
      const next = await call(second.process.baseUrl, "POST", `/v1/threads/${thread.body.id}/runs`, {
        body: { assistant_id: assistant.body.id }
      })
      expect(next.body.status).toBe("queued")
    } finally {
      await first.stop()
      await second.process?.stop()
    }
  })
})
