import { FakeOpenAI } from "@switchyard/fake-providers"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  gateway = await GatewayProcess.start({ GATEWAY_CACHE_EMBEDDING_MODEL: "@embedder/text-embedding-3-small" })
  const created = await call(gateway.baseUrl, "POST", "/v1/integrations", {
    body: { slug: "embedder", provider: "openai", api_key: "sk-embed", custom_host: fake.baseUrl }
  })
  expect(created.status).toBe(200)
})
afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
})

describe("the semantic cache embedding through the gateway itself", () => {
  it("asks the configured embeddings model, through the gateway's own pipeline", async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
        "x-gateway-config": JSON.stringify({
          provider: "openai",
          api_key: "sk-chat",
          custom_host: fake.baseUrl,
          cache: { mode: "semantic" }
        })
      },
      body: JSON.stringify(chatBody({ messages: [{ role: "user", content: "what is the tallest mountain?" }] }))
    })
    expect(response.status).toBe(200)
    expect(response.headers.get("x-gateway-cache-status")).toBe("SEMANTIC MISS")
    const embeddings = fake.requests.find((request) => request.path === "/v1/embeddings")
    expect(embeddings?.headers.authorization).toBe("Bearer sk-embed")
    expect(JSON.stringify(embeddings?.body)).toContain("tallest mountain")
  })
})
