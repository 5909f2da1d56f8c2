import { FakeAnthropic } from "@switchyard/fake-providers"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeAnthropic.FakeAnthropic
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeAnthropic.start({ apiKey: "sk-ant-test" })
  gateway = await GatewayProcess.start()
})
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
})

const client = () =>
  new OpenAI({
    apiKey: "sk-ant-test",
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: {
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-provider": "anthropic",
      "x-gateway-custom-host": fake.baseUrl
    },
    maxRetries: 0
  })

describe("anthropic through the server, driven by the openai client", () => {
  it("translates a plain chat both ways, system message included", async () => {
    const completion = await client().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hello" }]
    })
    expect(completion.object).toBe("chat.completion")
    expect(completion.choices[0]?.message.content).toBeTruthy()
    expect(completion.choices[0]?.finish_reason).toBe("stop")
    expect(completion.usage?.total_tokens).toBeGreaterThan(0)
    const sent = fake.requests.at(-1)
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-test")
    expect(sent?.body).toMatchObject({ system: [{ type: "text", text: "Be brief." }], max_tokens: 4096 })
  })

  it("streams Anthropic events as OpenAI chunks", async () => {
    const stream = await client().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "hello" }],
      stream: true,
      stream_options: { include_usage: true }
    })
    let text = ""
    let finish: string | null | undefined
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ""
      finish = chunk.choices[0]?.finish_reason ?? finish
      usage = chunk.usage ?? usage
    }
    expect(text.length).toBeGreaterThan(0)
    expect(finish).toBe("stop")
    expect(usage?.total_tokens).toBeGreaterThan(0)
  })

  it("calls tools and returns tool_calls with JSON-string arguments", async () => {
    const completion = await client().chat.completions.create({
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: "weather in Lyon?" }],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } }],
      tool_choice: "required"
    })
    const call = completion.choices[0]?.message.tool_calls?.[0]
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls")
    expect(call?.type === "function" ? call.function.name : undefined).toBe("get_weather")
    expect(call?.type === "function" ? typeof call.function.arguments : undefined).toBe("string")
    expect(fake.requests.at(-1)?.body).toMatchObject({ tool_choice: { type: "any" } })
  })

  it("refuses n > 1 with a 400 that says why, before calling Anthropic", async () => {
    const before = fake.requests.length
    await expect(
      client().chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }], n: 2 })
    ).rejects.toMatchObject({ status: 400 })
    expect(fake.requests.length).toBe(before)
  })

  it("passes Anthropic's own errors through with their status and message", async () => {
    const bad = new OpenAI({
      apiKey: "sk-wrong",
      baseURL: `${gateway.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-provider": "anthropic",
        "x-gateway-custom-host": fake.baseUrl
      },
      maxRetries: 0
    })
    await expect(
      bad.chat.completions.create({ model: "claude-sonnet-4-5", messages: [{ role: "user", content: "x" }] })
    ).rejects.toMatchObject({ status: 401 })
  })
})
