import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
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

describe("a circuit shared through Redis", () => {
  it("opened by failures through one gateway process, is open for the other", async () => {
    // a credential of its own, so this run's circuit is not an earlier run's
    const config = JSON.stringify({
      provider: "openai",
      api_key: `sk-shared-${randomBytes(6).toString("hex")}`,
      custom_host: fake.baseUrl,
      cb_config: { failure_threshold: 2, cooldown_interval: 30_000 }
    })
    fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    expect((await chatVia(first.baseUrl, GatewayProcess.ADMIN_KEY, { "x-gateway-config": config }, chatBody())).status)
      .toBe(500)
    expect((await chatVia(first.baseUrl, GatewayProcess.ADMIN_KEY, { "x-gateway-config": config }, chatBody())).status)
      .toBe(500)
    const other = await chatVia(second.baseUrl, GatewayProcess.ADMIN_KEY, { "x-gateway-config": config }, chatBody())
    expect(other.status).toBe(503)
    expect(fake.requests).toHaveLength(2)
    // the other process lists the circuit it was refused by, open, with the state kept in Redis
    const listed = await call(second.baseUrl, "GET", "/v1/circuits")
    expect(listed.body.data).toEqual([expect.objectContaining({ state: "open", consecutive_openings: 1 })])
  })
})
