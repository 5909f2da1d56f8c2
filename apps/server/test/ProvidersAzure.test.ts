import { FakeAzure } from "@switchyard/fake-providers"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeAzure.FakeAzure
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeAzure.start()
  gateway = await GatewayProcess.start()
})
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
})

const clientWith = (config: unknown) =>
  new OpenAI({
    apiKey: "unused",
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY, "x-gateway-config": JSON.stringify(config) },
    maxRetries: 0
  })

const azureOpenAI = () => ({
  provider: "azure-openai",
  api_key: "azure-key",
  custom_host: fake.baseUrl,
  resource_name: "contoso",
  api_version: "2024-10-21",
  deployments: [{ deployment_id: "gpt-4o-prod", alias: "gpt-4o", api_version: "2024-10-21", is_default: true }]
})

describe("azure through the server, driven by the openai client", () => {
  it("sends azure-openai requests to the deployment the model's alias names", async () => {
    const completion = await clientWith(azureOpenAI()).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hello" }]
    })
    expect(completion.choices[0]?.message.content).toBeTruthy()
    const sent = fake.requests.at(-1)
    expect(sent?.path).toBe("/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21")
    expect(sent?.headers["api-key"]).toBe("azure-key")
  })

  it("streams azure-openai answers", async () => {
    const stream = await clientWith(azureOpenAI()).chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hello" }],
      stream: true
    })
    let text = ""
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
    expect(text.length).toBeGreaterThan(0)
  })

  it("sends azure-ai managed requests with the deployment header", async () => {
    const config = {
      provider: "azure-ai",
      api_key: "azure-key",
      custom_host: fake.baseUrl,
      cloud3_deployment_type: "managed",
      cloud3_endpoint_name: "endpoint",
      cloud3_deployment_name: "blue",
      cloud3_region: "eastus",
      cloud3_api_version: "2024-05-01-preview"
    }
    const completion = await clientWith(config).chat.completions.create({
      model: "llama",
      messages: [{ role: "user", content: "hello" }]
    })
    expect(completion.choices[0]?.message.content).toBeTruthy()
    expect(fake.requests.at(-1)?.headers["azureml-model-deployment"]).toBe("blue")
  })
})

describe("GET /v1/models", () => {
  it("lists the catalog with prices, and one provider on request", async () => {
    const all = await call(gateway.baseUrl, "GET", "/v1/models")
    expect(all.status).toBe(200)
    expect(all.body.object).toBe("list")
    const owners = new Set(all.body.data.map((model: { owned_by: string }) => model.owned_by))
    expect(owners.has("anthropic")).toBe(true)
    expect(owners.has("openai")).toBe(true)
    const anthropic = await call(gateway.baseUrl, "GET", "/v1/models?provider=anthropic")
    expect(anthropic.body.data.every((model: { owned_by: string }) => model.owned_by === "anthropic")).toBe(true)
    expect(anthropic.body.data[0].pricing.input).toBeGreaterThan(0)
  })
})
