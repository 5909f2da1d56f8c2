import { Behaviour, FakeOpenAI, RedisServer } from "@switchyard/fake-providers"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
let redis: RedisServer.RedisServer
let gateway: GatewayProcess.GatewayProcess

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  redis = await RedisServer.start()
  gateway = await GatewayProcess.start({ REDIS_URL: redis.url })
})
afterAll(async () => {
  await gateway?.stop()
  await redis?.kill()
  await fake?.close()
})

// a credential of its own, so this run's circuit and entries are not an earlier run's
const apiKey = `sk-outage-${randomBytes(6).toString("hex")}`

/** One chat request through the cache and the circuit breaker: its status, cache status and time. */
const ask = async (content: string, through: GatewayProcess.GatewayProcess = gateway) => {
  const started = performance.now()
  const response = await fetch(`${through.baseUrl}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": GatewayProcess.ADMIN_KEY,
      "x-gateway-config": JSON.stringify({
        provider: "openai",
        api_key: apiKey,
        custom_host: fake.baseUrl,
        cache: { mode: "simple" },
        cb_config: { failure_threshold: 2, cooldown_interval: 30_000 }
      })
    },
    body: JSON.stringify(chatBody({ messages: [{ role: "user", content }] })),
    // a request held on Redis takes 5 s or more: give up at 3 s rather than wait for it
    signal: AbortSignal.timeout(3_000)
  })
  await response.text()
  return {
    status: response.status,
    cache: response.headers.get("x-gateway-cache-status"),
    millis: performance.now() - started
  }
}

const count = (text: string) => gateway.output().split(text).length - 1

/** Polls `check` until it holds (the gateway reconnecting to a real process), for at most 10 s. */
const eventually = async (check: () => Promise<boolean>) => {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not so after 10 s:\n${gateway.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const failing = () => fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))

describe("the gateway while its Redis is down", () => {
  it("answers each request within 1 s as a cache MISS, logs the outage once, and uses Redis again once it is back", async () => {
    const content = `outage ${randomBytes(6).toString("hex")}`
    expect(await ask(content)).toMatchObject({ status: 200, cache: "MISS" })
    expect(await ask(content)).toMatchObject({ status: 200, cache: "HIT" })

    await redis.kill()
    for (let i = 0; i < 5; i++) {
      const answer = await ask(content)
      expect(answer).toMatchObject({ status: 200, cache: "MISS" })
      expect(answer.millis).toBeLessThan(1_000)
    }
    // failures are not recorded while Redis is down: the circuit (threshold 2) stays closed
    for (let i = 0; i < 3; i++) {
      failing()
      const answer = await ask(content)
      expect(answer.status).toBe(500)
      expect(answer.millis).toBeLessThan(1_000)
    }
    expect(count("cache store: Redis unreachable")).toBe(1)
    expect(count("circuit store: Redis unreachable")).toBe(1)

    await redis.restart()
    await eventually(async () => count("circuit store: Redis answers again") === 1)
    const again = `back ${randomBytes(6).toString("hex")}`
    await eventually(async () => (await ask(again)).cache === "HIT")
    failing()
    failing()
    expect((await ask(again.toUpperCase())).status).toBe(500)
    expect((await ask(again.toUpperCase())).status).toBe(500)
    expect((await ask(again.toUpperCase())).status).toBe(503)

    expect(count("cache store: Redis answers again")).toBe(1)
    // nothing is logged per request
    expect(count("treated as a miss")).toBe(0)
    expect(count("CircuitBreaker")).toBe(0)
  })

  it("starts while its Redis is down, and answers each request within 1 s as a cache MISS", async () => {
    const down = await GatewayProcess.start({ REDIS_URL: `redis://127.0.0.1:${await RedisServer.unusedPort()}` })
    try {
      for (let i = 0; i < 3; i++) {
        const answer = await ask(`down at start ${randomBytes(6).toString("hex")}`, down)
        expect(answer).toMatchObject({ status: 200, cache: "MISS" })
        expect(answer.millis).toBeLessThan(1_000)
      }
      expect(down.output()).toContain("cache store: Redis unreachable (connect ECONNREFUSED")
    } finally {
      await down.stop()
    }
  })
})
