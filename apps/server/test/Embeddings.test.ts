import OpenAI from "openai"
import { describe, expect, it } from "vitest"
import { json, post, sseData, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

describe("POST /v1/embeddings and /v1/completions", () => {
  it("relays embeddings through the openai client", async () => {
    const client = new OpenAI({
      apiKey: "sk-upstream",
      baseURL: `${harness.gateway.baseUrl}/v1`,
      defaultHeaders: {
        "x-gateway-api-key": ADMIN_KEY,
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": harness.fake.baseUrl
      },
      maxRetries: 0
    })
    const result = await client.embeddings.create({ model: "text-embedding-3-small", input: ["a", "b"] })
    expect(result.data).toHaveLength(2)
    expect(harness.fake.requests[0]?.path).toBe("/v1/embeddings")
  })

  it("relays a legacy completion, plain and streamed", async () => {
    const plain = await post(harness, "/v1/completions", { model: "gpt-3.5-turbo-instruct", prompt: "Say hi" })
    expect(plain.status).toBe(200)
    expect((await json(plain)).object).toBe("text_completion")
    const streamed = await post(harness, "/v1/completions", { model: "m", prompt: "Say hi", stream: true })
    expect(sseData(await streamed.text()).at(-1)).toBe("[DONE]")
  })

  it("rejects an embeddings request without input", async () => {
    const response = await post(harness, "/v1/embeddings", { model: "m" })
    expect(response.status).toBe(400)
    expect((await json(response)).error.param).toBe("input")
  })

  it("refuses an endpoint the chosen provider does not serve", async () => {
    const response = await post(harness, "/v1/embeddings", { model: "m", input: "x" }, {
      "content-type": "application/json",
      "x-gateway-api-key": ADMIN_KEY,
      "x-gateway-provider": "groq",
      authorization: "Bearer sk-1"
    })
    expect(response.status).toBe(400)
    expect((await json(response)).error.message).toContain("does not serve /v1/embeddings")
    expect(harness.fake.requests).toHaveLength(0)
  })
})
