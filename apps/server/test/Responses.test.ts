/**
 * /v1/responses end to end: the real server process in front of a fake OpenAI-format provider.
 * Translated: a chat provider (`groq`, at the fake) replays recorded chat streams
 * (support/ResponsesTranscripts.ts). Native: an `openai` target is sent the Responses request on
 * the fake's own `/v1/responses`. Both driven by the official `openai` client
 * (`responses.create`, `responses.stream(...).finalResponse()`) and by the `ai` SDK's default
 * `openai(model)` provider, which calls this route.
 */
import { createOpenAI } from "@ai-sdk/openai"
import { Behaviour, FakeAnthropic, FakeAzure, FakeOpenAI } from "@switchyard/fake-providers"
import { generateText, jsonSchema, streamText, tool } from "ai"
import OpenAI from "openai"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import * as Transcripts from "./support/ResponsesTranscripts.ts"

let fake: FakeOpenAI.FakeOpenAI
let anthropic: FakeAnthropic.FakeAnthropic
let azure: FakeAzure.FakeAzure
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  anthropic = await FakeAnthropic.start({ apiKey: "sk-test" })
  azure = await FakeAzure.start()
  gateway = await GatewayProcess.start()
})
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
  await anthropic?.close()
  await azure?.close()
})
beforeEach(() => fake.reset())

/** A chat-format provider: the Responses request is translated (`openai` would take it natively). */
const selection = (provider = "groq") => ({
  "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
  "x-gateway-provider": provider,
  "x-gateway-custom-host": fake.baseUrl
})

const client = (provider?: string) =>
  new OpenAI({
    apiKey: "sk-test",
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: selection(provider),
    maxRetries: 0
  })

/** The raw SSE events of a streamed request, parsed. */
const rawEvents = async (body: unknown): Promise<Array<Record<string, unknown>>> => {
  const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
    method: "POST",
    headers: { ...selection(), "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify(body)
  })
  expect(response.headers.get("content-type")).toContain("text/event-stream")
  const text = await response.text()
  return text.split("\n\n").filter((block) => block.trim() !== "").map((block) => {
    const lines = block.split("\n")
    const event = lines.find((line) => line.startsWith("event: "))?.slice(7)
    const data = JSON.parse(lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "null")
    expect(data.type).toBe(event)
    return data
  })
}

const lastChatRequest = () => fake.requests.at(-1)?.body as Record<string, unknown>

describe("POST /v1/responses translated to a chat provider", () => {
  it("answers a plain request as a response object, the chat request built from input and instructions", async () => {
    fake.enqueue(Behaviour.reply())
    const response = await client().responses.create({
      model: "gpt-4o-mini",
      instructions: "Be brief.",
      input: "hello",
      max_output_tokens: 50,
      temperature: 0.3
    })
    expect(response.object).toBe("response")
    expect(response.id).toMatch(/^resp_/)
    expect(response.status).toBe("completed")
    expect(response.output_text.length).toBeGreaterThan(0)
    expect(response.output[0]).toMatchObject({ type: "message", role: "assistant", status: "completed" })
    expect(response.usage?.input_tokens).toBeGreaterThan(0)
    expect(response.usage?.total_tokens).toBe(
      (response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0)
    )
    expect(lastChatRequest()).toMatchObject({
      model: "gpt-4o-mini",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello" }],
      max_tokens: 50,
      temperature: 0.3
    })
  })

  it.each(Object.keys(Transcripts.expectedEvents) as Array<keyof typeof Transcripts.expectedEvents>)(
    "streams the %s transcript as the golden event sequence, numbered from 0",
    async (name) => {
      fake.enqueue(Transcripts.sse(Transcripts[name]))
      const events = await rawEvents({ model: "gpt-4o-mini", input: "go", stream: true })
      expect(events.map((event) => event.type)).toEqual(Transcripts.expectedEvents[name])
      expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index))
      expect(lastChatRequest()).toMatchObject({ stream: true, stream_options: { include_usage: true } })
    }
  )

  it("assembles the same final response from the stream as the plain answer (openai client)", async () => {
    fake.enqueue(Transcripts.sse(Transcripts.functionCall))
    const streamed = await client().responses.stream({ model: "gpt-4o-mini", input: "weather?" }).finalResponse()
    expect(streamed.status).toBe("completed")
    expect(streamed.output).toEqual([
      expect.objectContaining({
        type: "function_call",
        call_id: "call_weather",
        name: "get_weather",
        arguments: "{\"city\": \"Lyon\"}",
        status: "completed"
      })
    ])
    expect(streamed.usage).toMatchObject({ input_tokens: 40, output_tokens: 18, total_tokens: 58 })

    fake.enqueue(Transcripts.sse(Transcripts.parallelCalls))
    const parallel = await client().responses.stream({ model: "gpt-4o-mini", input: "both" }).finalResponse()
    expect(parallel.output.map((item) => item.type === "function_call" ? [item.call_id, item.arguments] : [])).toEqual([
      ["call_a", "{\"city\":\"Paris\"}"],
      ["call_b", "{\"zone\":\"CET\"}"]
    ])

    fake.enqueue(Transcripts.sse(Transcripts.reasoning))
    const reasoned = await client().responses.stream({ model: "gpt-4o-mini", input: "?" }).finalResponse()
    expect(reasoned.output.map((item) => item.type)).toEqual(["reasoning", "message"])
    expect(reasoned.output[0]).toMatchObject({ summary: [{ type: "summary_text", text: "The user wants a number." }] })
    expect(reasoned.output_text).toBe("42")
    expect(reasoned.usage?.output_tokens_details.reasoning_tokens).toBe(21)

    fake.enqueue(Transcripts.sse(Transcripts.length))
    const cut = await client().responses.stream({ model: "gpt-4o-mini", input: "story" }).finalResponse()
    expect(cut.status).toBe("incomplete")
    expect(cut.incomplete_details).toEqual({ reason: "max_output_tokens" })
    expect(cut.output_text).toBe("Once upon a")
  })

  it("ends a stream cut upstream with response.failed and a last error event holding the envelope", async () => {
    fake.enqueue(Behaviour.cutStream(2))
    const events = await rawEvents({ model: "gpt-4o-mini", input: "go", stream: true })
    expect(events.at(-2)).toMatchObject({ type: "response.failed", response: { status: "failed" } })
    const last = events.at(-1)
    expect(last).toMatchObject({ type: "error", error: { type: expect.any(String), message: expect.any(String) } })
    // the official client turns that last event into an error rather than a half response
    fake.enqueue(Behaviour.cutStream(2))
    await expect(client().responses.stream({ model: "gpt-4o-mini", input: "go" }).finalResponse()).rejects.toThrow()
  })

  it("keeps a response: GET answers it, previous_response_id continues it, DELETE removes it", async () => {
    fake.enqueue(Transcripts.sse(Transcripts.functionCall))
    const first = await client().responses.stream({ model: "gpt-4o-mini", input: "weather in Lyon?" }).finalResponse()
    const kept = await client().responses.retrieve(first.id)
    // the client adds its own parse of the arguments to what it assembled
    expect(first.output).toMatchObject(kept.output)

    fake.enqueue(Behaviour.reply())
    const second = await client().responses.create({
      model: "gpt-4o-mini",
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: "call_weather", output: "{\"celsius\": 21}" }]
    })
    expect(second.previous_response_id).toBe(first.id)
    expect(lastChatRequest().messages).toEqual([
      { role: "user", content: "weather in Lyon?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "call_weather",
          type: "function",
          function: { name: "get_weather", arguments: "{\"city\": \"Lyon\"}" }
        }]
      },
      { role: "tool", tool_call_id: "call_weather", content: "{\"celsius\": 21}" }
    ])

    await client().responses.delete(first.id)
    await expect(client().responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 })
  })

  it("a conversation survives the delete of a response in its middle: the next turn still sends all of it", async () => {
    const turn = async (text: string, previous?: string) => {
      fake.enqueue(Behaviour.json(200, {
        id: `chatcmpl-${text}`,
        object: "chat.completion",
        created: 1_760_000_000,
        model: "gpt-4o-mini",
        choices: [{ index: 0, message: { role: "assistant", content: `answer to ${text}` }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }
      }))
      return client().responses.create({
        model: "gpt-4o-mini",
        input: text,
        ...(previous === undefined ? {} : { previous_response_id: previous })
      })
    }
    const first = await turn("one")
    const second = await turn("two", first.id)
    const third = await turn("three", second.id)
    await client().responses.delete(second.id)
    await expect(turn("four", second.id)).rejects.toMatchObject({ status: 400 })
    await turn("four", third.id)
    const messages = lastChatRequest()["messages"] as Array<{ readonly role: string; readonly content: unknown }>
    const sent = messages.map((message) => `${message.role}: ${String(message.content)}`)
    expect(sent).toEqual([
      "user: one",
      "assistant: answer to one",
      "user: two",
      "assistant: answer to two",
      "user: three",
      "assistant: answer to three",
      "user: four"
    ])
  })

  it("answers 400 naming the field for bad input, an unknown previous_response_id and a built-in tool", async () => {
    const post = (body: unknown) =>
      fetch(`${gateway.baseUrl}/v1/responses`, {
        method: "POST",
        headers: { ...selection(), "content-type": "application/json" },
        body: JSON.stringify(body)
      }).then(async (response) => ({ status: response.status, body: await response.json() }))
    const before = fake.requests.length
    expect(await post({ model: "m", input: "x", temperature: 3 })).toMatchObject({
      status: 400,
      body: { error: { param: "temperature", message: expect.stringContaining("between 0 and 2") } }
    })
    expect(await post({ model: "m" })).toMatchObject({ status: 400, body: { error: { param: "input" } } })
    expect(await post({ model: "m", input: [{ type: "function_call", name: "f" }] })).toMatchObject({
      status: 400,
      body: { error: { param: expect.stringMatching(/^input\[0\]/) } }
    })
    expect(await post({ model: "m", input: "x", previous_response_id: "resp_missing" })).toMatchObject({
      status: 400,
      body: { error: { param: "previous_response_id" } }
    })
    expect(await post({ model: "m", input: "x", tools: [{ type: "web_search" }] })).toMatchObject({
      status: 400,
      body: { error: { param: "tools[0].type" } }
    })
    expect(fake.requests.length).toBe(before)
  })
})

describe("the ai SDK's default openai(model) provider against /v1/responses", () => {
  const provider = () => createOpenAI({ apiKey: "sk-test", baseURL: `${gateway.baseUrl}/v1`, headers: selection() })

  it("generateText and streamText assemble the same text, finish reason and usage", async () => {
    fake.enqueue(Transcripts.sse(Transcripts.text))
    const streamed = streamText({ model: provider()("gpt-4o-mini"), prompt: "hi" })
    const text = await streamed.text
    expect(text).toBe("Hello, world")
    expect(await streamed.finishReason).toBe("stop")
    expect((await streamed.usage).inputTokens).toBe(11)

    fake.enqueue(Behaviour.reply())
    const generated = await generateText({ model: provider()("gpt-4o-mini"), prompt: "hi" })
    expect(generated.text.length).toBeGreaterThan(0)
    expect(generated.finishReason).toBe("stop")
    expect(generated.usage.inputTokens).toBeGreaterThan(0)
  })

  it("streams a tool call with its arguments joined from their fragments", async () => {
    fake.enqueue(Transcripts.sse(Transcripts.functionCall))
    const streamed = streamText({
      model: provider()("gpt-4o-mini"),
      prompt: "weather?",
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } })
        })
      }
    })
    const calls = await streamed.toolCalls
    expect(calls.map((call) => [call.toolCallId, call.toolName, call.input])).toEqual([
      ["call_weather", "get_weather", { city: "Lyon" }]
    ])
    expect(await streamed.finishReason).toBe("tool-calls")
    expect((await streamed.usage).outputTokens).toBe(18)
  })
})

describe("an openai target takes the Responses request natively", () => {
  /** Ids and timestamps differ between two answers; the rest must be the same. */
  const comparable = (response: OpenAI.Responses.Response) => ({
    status: response.status,
    model: response.model,
    output_text: response.output_text,
    output: response.output.map((item) =>
      item.type === "message"
        ? { type: item.type, role: item.role, status: item.status, content: item.content }
        : item.type === "function_call"
        ? { type: item.type, name: item.name, arguments: item.arguments, status: item.status }
        : { type: item.type }
    ),
    usage: response.usage
  })
  const vendor = () => new OpenAI({ apiKey: "sk-test", baseURL: fake.baseUrl, maxRetries: 0 })

  it("posts to the vendor's /v1/responses and answers what the vendor's own answer says", async () => {
    const body = { model: "gpt-4o-mini", instructions: "Be brief.", input: "hello there", max_output_tokens: 40 }
    const ours = await client("openai").responses.create(body)
    const sent = fake.requests.at(-1)
    expect(sent?.path).toBe("/v1/responses")
    expect(sent?.headers.authorization).toBe("Bearer sk-test")
    expect(sent?.body).toMatchObject({ ...body, input: [{ role: "user", content: "hello there" }], store: false })
    expect(comparable(ours)).toEqual(comparable(await vendor().responses.create(body)))
  })

  it("the openai client assembles the same final response from our stream as from the vendor's", async () => {
    const body = { model: "gpt-4o-mini", input: "stream this" }
    const ours = await client("openai").responses.stream(body).finalResponse()
    expect(fake.requests.at(-1)?.body).toMatchObject({ stream: true })
    expect(comparable(ours)).toEqual(comparable(await vendor().responses.stream(body).finalResponse()))

    const tools = [{ type: "function" as const, name: "get_weather", parameters: { type: "object" }, strict: false }]
    const called = await client("openai").responses.stream({ ...body, tools }).finalResponse()
    expect(comparable(called)).toEqual(comparable(await vendor().responses.stream({ ...body, tools }).finalResponse()))
  })

  it("the ai SDK streams the same text and usage through the gateway as from the vendor", async () => {
    const direct = streamText({
      model: createOpenAI({ apiKey: "sk-test", baseURL: fake.baseUrl })("gpt-4o-mini"),
      prompt: "a b c"
    })
    const through = streamText({ model: provider("openai")("gpt-4o-mini"), prompt: "a b c" })
    expect(await through.text).toBe(await direct.text)
    expect((await through.usage).inputTokens).toBe((await direct.usage).inputTokens)
    expect(await through.finishReason).toBe(await direct.finishReason)
  })

  it("continues a stored conversation natively: previous_response_id becomes the items the gateway kept", async () => {
    const first = await client("openai").responses.create({ model: "gpt-4o-mini", input: "first" })
    await client("openai").responses.create({ model: "gpt-4o-mini", previous_response_id: first.id, input: "second" })
    const sent = fake.requests.at(-1)?.body as Record<string, unknown>
    expect(sent.previous_response_id).toBeUndefined()
    expect(sent.input).toEqual([
      { type: "message", role: "user", content: "first" },
      {
        type: "message",
        role: "assistant",
        content: [{ type: "output_text", text: "echo: first", annotations: [], logprobs: [] }]
      },
      { type: "message", role: "user", content: "second" }
    ])
  })
})

describe("an azure-openai target takes the Responses request natively", () => {
  const viaAzure = () =>
    new OpenAI({
      apiKey: "unused",
      baseURL: `${gateway.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": JSON.stringify({
          provider: "azure-openai",
          api_key: "azure-key",
          custom_host: azure.baseUrl,
          resource_name: "contoso",
          deployments: [{ deployment_id: "gpt-4o-prod", alias: "gpt-4o", api_version: "2025-03-01-preview" }]
        })
      },
      maxRetries: 0
    })

  it("posts to the resource's /openai/responses with the deployment as the model, plain and streamed", async () => {
    const plain = await viaAzure().responses.create({ model: "gpt-4o", input: "hello azure" })
    expect(plain.output_text).toBe("echo: hello azure")
    expect(plain.model).toBe("gpt-4o-2024-11-20")
    const sent = azure.requests.at(-1)
    expect(sent?.path).toBe("/openai/responses?api-version=2025-03-01-preview")
    expect(sent?.headers["api-key"]).toBe("azure-key")
    expect(sent?.body).toMatchObject({ model: "gpt-4o-prod", store: false })

    const streamed = await viaAzure().responses.stream({ model: "gpt-4o", input: "stream azure" }).finalResponse()
    expect(streamed.output_text).toBe("echo: stream azure")
    expect(streamed.usage?.total_tokens).toBeGreaterThan(0)
  })
})

const provider = (name?: string) =>
  createOpenAI({ apiKey: "sk-test", baseURL: `${gateway.baseUrl}/v1`, headers: selection(name) })

describe("the chat pipeline's policies apply to /v1/responses", () => {
  const withConfig = (config: Record<string, unknown>, body: unknown) =>
    fetch(`${gateway.baseUrl}/v1/responses`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": JSON.stringify({ api_key: "sk-policy", custom_host: fake.baseUrl, ...config })
      },
      body: JSON.stringify(body)
    }).then(async (response) => ({
      status: response.status,
      cache: response.headers.get("x-gateway-cache-status"),
      // read loosely, as the other server tests read answers
      body: JSON.parse(await response.text())
    }))

  it("answers a repeat from the cache without calling the provider", async () => {
    const config = { provider: "groq", cache: { mode: "simple", max_age: 60 } }
    const body = { model: "gpt-4o-mini", input: `cache me ${Date.now()}` }
    const first = await withConfig(config, body)
    const second = await withConfig(config, body)
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.cache).toBe("HIT")
    expect(fake.requests).toHaveLength(1)
    expect(second.body.output).toEqual([expect.objectContaining({ type: "message" })])
    expect(second.body.output[0].content[0].text).toBe(first.body.output[0].content[0].text)
    // each answer is a response of its own
    expect(second.body.id).not.toBe(first.body.id)
  })

  it("denies an input guardrail's match with 446 before the provider is called", async () => {
    const answer = await withConfig({
      provider: "groq",
      input_guardrails: [{ "default.contains": { words: ["forbidden"], operator: "none" }, deny: true }]
    }, { model: "gpt-4o-mini", input: "this is forbidden" })
    expect(answer.status).toBe(446)
    expect(answer.body.error.code).toBe("hook_denied")
    expect(fake.requests).toHaveLength(0)
  })

  it("reports the verdict of a check that let the request through, as chat completions do", async () => {
    const answer = await withConfig({
      provider: "groq",
      input_guardrails: [{ "default.wordCount": { minWords: 50 } }]
    }, { model: "gpt-4o-mini", input: "short" })
    expect(answer.status).toBe(200)
    expect(answer.body.object).toBe("response")
    expect(answer.body.hook_results.before_request_hooks[0].verdict).toBe(false)
  })

  it("sends an openai target the chat request when a mutator rewrote the input (the change wins)", async () => {
    const answer = await withConfig({
      provider: "openai",
      before_request_hooks: [{
        id: "redact",
        type: "mutator",
        checks: [{ id: "default.regexReplace", parameters: { rule: "[\\w.]+@[\\w.]+", redactText: "[EMAIL]" } }]
      }]
    }, { model: "gpt-4o-mini", input: "mail ada@example.com" })
    expect(answer.status).toBe(200)
    expect(answer.body.object).toBe("response")
    const sent = fake.requests.at(-1)
    expect(sent?.path).toBe("/v1/chat/completions")
    expect(JSON.stringify(sent?.body)).toContain("[EMAIL]")
    expect(JSON.stringify(sent?.body)).not.toContain("ada@example.com")
  })
})

describe("another provider family: Anthropic", () => {
  const claude = () =>
    new OpenAI({
      apiKey: "sk-test",
      baseURL: `${gateway.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "anthropic",
        "x-gateway-custom-host": anthropic.baseUrl
      },
      maxRetries: 0
    })

  it("continues on Anthropic a conversation stored from another provider (previous_response_id)", async () => {
    fake.enqueue(Transcripts.sse(Transcripts.text))
    const first = await client().responses.stream({ model: "gpt-4o-mini", input: "hi" }).finalResponse()
    const second = await claude().responses.create({
      model: "claude-sonnet-4-5",
      instructions: "Be brief.",
      previous_response_id: first.id,
      input: "and then?"
    })
    expect(second.output_text).toBe("echo: and then?")
    expect(second.usage?.input_tokens).toBeGreaterThan(0)
    expect(anthropic.requests.at(-1)?.body).toMatchObject({
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "Hello, world" }] },
        { role: "user", content: [{ type: "text", text: "and then?" }] }
      ]
    })
  })

  it("streams Claude's tool use as a function_call the openai client assembles", async () => {
    const streamed = await claude().responses.stream({
      model: "claude-sonnet-4-5",
      input: "weather in Lyon?",
      tools: [{ type: "function", name: "get_weather", parameters: { type: "object", properties: {} }, strict: false }],
      tool_choice: "required"
    }).finalResponse()
    expect(streamed.status).toBe("completed")
    expect(streamed.output).toEqual([
      expect.objectContaining({ type: "function_call", name: "get_weather", arguments: "{}", status: "completed" })
    ])
    const call = streamed.output[0]
    expect(call?.type === "function_call" ? call.call_id : undefined).toMatch(/^toolu_fake_/)
    expect(anthropic.requests.at(-1)?.body).toMatchObject({ tool_choice: { type: "any" }, stream: true })
  })
})
