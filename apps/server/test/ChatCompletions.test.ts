import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { chatBody, json, post, sseData, useGatewayAndFake, viaProviderHeader } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

const client = () =>
  new OpenAI({
    apiKey: "sk-upstream",
    baseURL: `${harness.gateway.baseUrl}/v1`,
    defaultHeaders: {
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl
    },
    maxRetries: 0
  })

describe("POST /v1/chat/completions", () => {
  it("relays a plain answer from the provider chosen by x-gateway-provider", async () => {
    const response = await post(harness, "/v1/chat/completions", chatBody())
    expect(response.status).toBe(200)
    const body = await json(response)
    expect(body.object).toBe("chat.completion")
    expect(body.choices[0].message.content).toBe("echo: hello there")
    expect(response.headers.get("x-gateway-provider")).toBe("openai")
    expect(response.headers.get("x-gateway-last-used-option-index")).toBe("config")
    const upstream = harness.fake.requests[0]
    expect(upstream?.path).toBe("/v1/chat/completions")
    expect(upstream?.headers.authorization).toBe("Bearer sk-upstream")
    expect(upstream?.body).toEqual(chatBody())
    expect(upstream?.headers["x-gateway-api-key"]).toBeUndefined()
  })

  it("works through the official openai client with default headers", async () => {
    const completion = await client().chat.completions.create(
      chatBody() as OpenAI.ChatCompletionCreateParamsNonStreaming
    )
    expect(completion.choices[0]?.message.content).toBe("echo: hello there")
    expect(completion.usage?.total_tokens).toBeGreaterThan(0)
  })

  it("streams chunks through the openai client and ends the stream", async () => {
    const stream = await client().chat.completions.create({
      ...(chatBody() as OpenAI.ChatCompletionCreateParamsNonStreaming),
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      usage = chunk.usage ?? usage
    }
    expect(text).toBe("echo: hello there")
    expect(usage?.total_tokens).toBeGreaterThan(0)
  })

  it("ends a raw SSE stream with data: [DONE]", async () => {
    const response = await post(harness, "/v1/chat/completions", chatBody({ stream: true }))
    expect(response.headers.get("content-type")).toContain("text/event-stream")
    const events = sseData(await response.text())
    expect(events.at(-1)).toBe("[DONE]")
    expect(JSON.parse(events[0] ?? "{}").object).toBe("chat.completion.chunk")
  })

  it("relays each chunk as it arrives instead of buffering the answer", async () => {
    const { Behaviour } = await import("@switchyard/fake-providers")
    harness.fake.enqueue(Behaviour.slowStream(150))
    const response = await post(harness, "/v1/chat/completions", chatBody({ stream: true }))
    const reader = response.body!.getReader()
    const arrivals: Array<number> = []
    for (;;) {
      const { done } = await reader.read()
      if (done) break
      arrivals.push(Date.now())
    }
    expect(arrivals.length).toBeGreaterThan(2)
    // chunks written 150 ms apart upstream arrive spread out, not all at the end
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThan(300)
  })

  it("relays tool calls", async () => {
    const completion = await client().chat.completions.create({
      ...(chatBody() as OpenAI.ChatCompletionCreateParamsNonStreaming),
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } }]
    })
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls")
    const call = completion.choices[0]?.message.tool_calls?.[0]
    expect(call?.type === "function" ? call.function.name : undefined).toBe("get_weather")
  })

  it("echoes the caller's trace id, and generates one when there is none", async () => {
    const traced = await post(harness, "/v1/chat/completions", chatBody(), {
      ...viaProviderHeader(harness.fake),
      "x-gateway-trace-id": "trace-abc"
    })
    expect(traced.headers.get("x-gateway-trace-id")).toBe("trace-abc")
    const untraced = await post(harness, "/v1/chat/completions", chatBody())
    expect(untraced.headers.get("x-gateway-trace-id")).toMatch(/^[0-9a-f]{32}$/)
  })

  it("sends the provider no traceparent when tracing is off, not even the caller's", async () => {
    const response = await post(harness, "/v1/chat/completions", chatBody(), {
      ...viaProviderHeader(harness.fake),
      traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    })
    expect(response.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.traceparent).toBeUndefined()
  })

  it("selects the provider with a config object in x-gateway-config", async () => {
    const config = {
      provider: "openai",
      api_key: "sk-from-config",
      custom_host: harness.fake.baseUrl,
      override_params: { temperature: 0.2, model: "gpt-override" }
    }
    const response = await post(harness, "/v1/chat/completions", chatBody({ temperature: 1 }), {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config)
    })
    expect(response.status).toBe(200)
    const upstream = harness.fake.requests[0]
    expect(upstream?.headers.authorization).toBe("Bearer sk-from-config")
    expect(upstream?.body).toMatchObject({ temperature: 0.2, model: "gpt-override" })
  })

  it("prefers x-gateway-config over x-gateway-provider", async () => {
    const config = { provider: "openai", api_key: "sk-config-wins", custom_host: harness.fake.baseUrl }
    await post(harness, "/v1/chat/completions", chatBody(), {
      ...viaProviderHeader(harness.fake),
      "x-gateway-config": JSON.stringify(config)
    })
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-config-wins")
  })

  it("sends the vendor organization and project headers", async () => {
    const config = {
      provider: "openai",
      api_key: "sk-1",
      custom_host: harness.fake.baseUrl,
      vendor_organization: "org-1",
      vendor_project: "proj-1"
    }
    await post(harness, "/v1/chat/completions", chatBody(), {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config)
    })
    expect(harness.fake.requests[0]?.headers["openai-organization"]).toBe("org-1")
    expect(harness.fake.requests[0]?.headers["openai-project"]).toBe("proj-1")
  })

  it("forwards only the headers named in x-gateway-forward-headers", async () => {
    await post(harness, "/v1/chat/completions", chatBody(), {
      ...viaProviderHeader(harness.fake),
      "x-gateway-forward-headers": "x-tenant",
      "x-tenant": "acme",
      "x-secret": "nope"
    })
    expect(harness.fake.requests[0]?.headers["x-tenant"]).toBe("acme")
    expect(harness.fake.requests[0]?.headers["x-secret"]).toBeUndefined()
  })

  it("routes a strategy-less target list through the single strategy", async () => {
    const config = {
      strategy: { mode: "single" },
      api_key: "sk-inherited",
      targets: [{ provider: "openai", custom_host: harness.fake.baseUrl }]
    }
    const response = await post(harness, "/v1/chat/completions", chatBody(), {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-config": JSON.stringify(config)
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-gateway-last-used-option-index")).toBe("config.targets[0]")
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-inherited")
  })
})
