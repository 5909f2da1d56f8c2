import { FakeBedrock, FakeGemini, FakeVertex } from "@switchyard/fake-providers"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let gemini: FakeGemini.FakeGemini
let vertex: FakeVertex.FakeVertex
let bedrock: FakeBedrock.FakeBedrock
let gateway: GatewayProcess.GatewayProcess
const awsCredentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" }

beforeAll(async () => {
  gemini = await FakeGemini.start()
  vertex = await FakeVertex.start()
  bedrock = await FakeBedrock.start({ credentials: awsCredentials, region: "us-east-1" })
  gateway = await GatewayProcess.start()
})
afterAll(async () => {
  await gateway?.stop()
  await Promise.all([gemini?.close(), vertex?.close(), bedrock?.close()])
})

const clientWith = (config: unknown) =>
  new OpenAI({
    apiKey: "unused",
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: { "x-gateway-api-key": GatewayProcess.ADMIN_KEY, "x-gateway-config": JSON.stringify(config) },
    maxRetries: 0
  })

const ask = (config: unknown, model: string) =>
  clientWith(config).chat.completions.create({ model, messages: [{ role: "user", content: "hello" }] })

const streamText = async (config: unknown, model: string) => {
  const stream = await clientWith(config).chat.completions.create({
    model,
    messages: [{ role: "user", content: "hello" }],
    stream: true
  })
  let text = ""
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
  return text
}

describe("google, vertex-ai and bedrock through the server, driven by the openai client", () => {
  const geminiConfig = () => ({ provider: "google", api_key: gemini.apiKey, custom_host: gemini.baseUrl })
  const vertexConfig = () => ({
    provider: "vertex-ai",
    cloud2_project_id: vertex.project,
    cloud2_region: vertex.region,
    cloud2_service_account_json: vertex.serviceAccount,
    custom_host: vertex.baseUrl
  })
  const bedrockConfig = () => ({
    provider: "bedrock",
    cloud1_access_key_id: awsCredentials.accessKeyId,
    cloud1_secret_access_key: awsCredentials.secretAccessKey,
    cloud1_region: "us-east-1",
    custom_host: bedrock.baseUrl
  })

  it("google: answers and streams", async () => {
    const completion = await ask(geminiConfig(), "gemini-2.5-flash")
    expect(completion.choices[0]?.message.content).toBeTruthy()
    expect(gemini.requests.at(-1)?.path).toContain("/models/gemini-2.5-flash:generateContent")
    expect((await streamText(geminiConfig(), "gemini-2.5-flash")).length).toBeGreaterThan(0)
  })

  it("vertex-ai: exchanges the service account for a token once, then answers", async () => {
    await ask(vertexConfig(), "gemini-2.5-pro")
    await ask(vertexConfig(), "gemini-2.5-pro")
    expect(vertex.tokenRequests()).toBe(1)
    expect(vertex.requests.at(-1)?.headers.authorization).toMatch(/^Bearer /)
  })

  it("vertex-ai: serves Anthropic models through the anthropic publisher", async () => {
    const completion = await ask(vertexConfig(), "claude-sonnet-4-5")
    expect(completion.choices[0]?.message.content).toBeTruthy()
    expect(vertex.requests.at(-1)?.path).toContain("/publishers/anthropic/models/claude-sonnet-4-5:rawPredict")
  })

  it("bedrock: signs with SigV4, answers and streams", async () => {
    const completion = await ask(bedrockConfig(), "anthropic.claude-3-5-sonnet-20240620-v1:0")
    expect(completion.choices[0]?.message.content).toBeTruthy()
    expect(bedrock.requests.at(-1)?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /)
    expect((await streamText(bedrockConfig(), "anthropic.claude-3-5-sonnet-20240620-v1:0")).length).toBeGreaterThan(0)
  })

  it("bedrock: a wrong secret gets AWS's own 403 through", async () => {
    const wrong = { ...bedrockConfig(), cloud1_secret_access_key: "not-the-secret" }
    await expect(ask(wrong, "anthropic.claude-3-5-sonnet-20240620-v1:0")).rejects.toMatchObject({ status: 403 })
  })
})
