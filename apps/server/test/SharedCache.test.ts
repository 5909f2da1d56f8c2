import { FakeOpenAI } from "@switchyard/fake-providers"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let first: GatewayProcess.GatewayProcess
let second: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  // sharing, not outages, is what is tested here: a loaded machine's slow Redis answer must not
  // make a store count Redis as down
  const shared = { REDIS_URL: "redis://127.0.0.1:6379", GATEWAY_REDIS_DEADLINE_MS: "5000" }
  first = await GatewayProcess.start(shared)
  second = await GatewayProcess.start(shared)
})
afterAll(async () => {
  await first?.stop()
  await second?.stop()
  await fake?.close()
})

const ask = async (gateway: GatewayProcess.GatewayProcess, content: string) => {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-config": JSON.stringify({
        provider: "openai",
        api_key: "sk-shared-cache",
        custom_host: fake.baseUrl,
        cache: { mode: "simple" }
      })
    },
    body: JSON.stringify(chatBody({ messages: [{ role: "user", content }] }))
  })
  await response.text()
  return response.headers.get("x-gateway-cache-status")
}

describe("a cache shared through Redis", () => {
  it("serves an answer stored through one gateway process from the other", async () => {
    const content = `shared ${randomBytes(6).toString("hex")}`
    expect(await ask(first, content)).toBe("MISS")
    expect(await ask(second, content)).toBe("HIT")
    expect(fake.requests).toHaveLength(1)
  })
})
