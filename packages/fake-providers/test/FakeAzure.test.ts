import { Behaviour, FakeAzure } from "@switchyard/fake-providers"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"

let fake: FakeAzure.FakeAzure
const chat = { messages: [{ role: "user", content: "hello there" }] }
const azurePath = "/openai/deployments/gpt-4o-prod/chat/completions?api-version=2024-10-21"

const post = (path: string, headers: Record<string, string>, body: unknown = chat) =>
  fetch(`${fake.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  })

beforeAll(async () => {
  fake = await FakeAzure.start()
})
afterEach(() => fake.reset())
afterAll(() => fake.close())

describe("FakeAzure", () => {
  it("answers an Azure OpenAI chat call with the deployment's model and content-filter results", async () => {
    const response = await post(azurePath, { "api-key": "azure-key" })
    expect(response.status).toBe(200)
    const safe = { filtered: false, severity: "safe" }
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "gpt-4o-2024-11-20",
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: safe } }],
      choices: [{ content_filter_results: { hate: safe, violence: safe } }]
    })
  })

  it("accepts the Entra token as a Bearer Authorization", async () => {
    expect((await post(azurePath, { authorization: "Bearer entra-token" })).status).toBe(200)
  })

  it("refuses a wrong key with Azure's 401 and keeps the queued behaviour", async () => {
    fake.enqueue(Behaviour.json(500, { error: { message: "queued" } }))
    const response = await post(azurePath, { "api-key": "wrong" })
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("Access denied") } })
    expect((await post(azurePath, { "api-key": "azure-key" })).status).toBe(500)
  })

  it("answers 404 without an api-version and for an unknown deployment", async () => {
    const noVersion = await post("/openai/deployments/gpt-4o-prod/chat/completions", { "api-key": "azure-key" })
    expect(noVersion.status).toBe(404)
    const unknown = await post("/openai/deployments/nope/chat/completions?api-version=2024-10-21", {
      "api-key": "azure-key"
    })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({ error: { code: "DeploymentNotFound" } })
  })

  it("refuses a chat body without messages", async () => {
    expect((await post(azurePath, { "api-key": "azure-key" }, { model: "x" })).status).toBe(400)
  })

  it("opens an Azure OpenAI stream with the prompt-filter chunk", async () => {
    const response = await post(azurePath, { "api-key": "azure-key" }, { ...chat, stream: true })
    const events = (await response.text()).split("\n\n").filter((event) => event !== "")
    expect(JSON.parse(events[0]?.slice("data: ".length) ?? "")).toMatchObject({ choices: [], object: "" })
    expect(events.at(-1)).toBe("data: [DONE]")
  })

  it("serves the serverless and managed inference routes behind a Bearer key", async () => {
    const serverless = await post("/chat/completions?api-version=2024-05-01-preview", {
      authorization: "Bearer azure-key"
    })
    expect(serverless.status).toBe(200)
    expect(await serverless.json()).toMatchObject({ model: "Meta-Llama-3.1-70B-Instruct" })
    const managed = await post("/score", { authorization: "Bearer azure-key", "azureml-model-deployment": "blue" })
    expect(managed.status).toBe(200)
    const noDeployment = await post("/score", { authorization: "Bearer azure-key" })
    expect(noDeployment.status).toBe(404)
    expect((await post("/chat/completions", { "api-key": "azure-key" })).status).toBe(401)
  })
})
