/**
 * Usage limits stay exact across replicas: two gateway processes sharing one Postgres (policies)
 * and one Redis (counters). And what a Redis outage does under GATEWAY_LIMITS_ON_STORE_ERROR.
 */
import { Behaviour, FakeOpenAI, RedisServer } from "@switchyard/fake-providers"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { tokenBudget, twentyTokens } from "./support/Usage.ts"

/** A chat answer that always reports 20 tokens. */
/** A key of its own and a tokens policy on it: at 20 tokens a call, a limit of 200 admits at most 10. */
const keyUnderPolicy = async (baseUrl: string, creditLimit = 200) => {
  const created = await call(baseUrl, "POST", "/v1/api-keys", { body: { name: "shared", scopes: ["completions"] } })
  expect(created.status).toBe(200)
  const policy = await call(baseUrl, "POST", "/v1/policies/usage-limits", {
    body: tokenBudget(created.body.id, creditLimit)
  })
  expect(policy.status).toBe(200)
  return created.body.key as string
}

/** A key of its own under a requests-per-minute policy of `value`. */
const keyUnderRateLimit = async (baseUrl: string, value: number) => {
  const created = await call(baseUrl, "POST", "/v1/api-keys", { body: { name: "rated", scopes: ["completions"] } })
  expect(created.status).toBe(200)
  const policy = await call(baseUrl, "POST", "/v1/policies/rate-limits", {
    body: {
      conditions: [{ key: "api_key", value: created.body.id }],
      group_by: [{ key: "api_key" }],
      type: "requests",
      unit: "rpm",
      value
    }
  })
  expect(policy.status).toBe(200)
  return created.body.key as string
}

const ask = (baseUrl: string, key: string, fake: FakeOpenAI.FakeOpenAI) =>
  chatVia(baseUrl, key, {
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": fake.baseUrl,
    authorization: "Bearer sk-upstream"
  }, chatBody({ max_tokens: 16 }))

describe("usage limits shared by two gateway processes (Postgres and Redis)", () => {
  const database = `switchyard_limits_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  let fake: FakeOpenAI.FakeOpenAI
  let first: GatewayProcess.GatewayProcess
  let second: GatewayProcess.GatewayProcess
  let concurrentKey = ""
  let sequentialKey = ""
  let rateConcurrentKey = ""
  let rateSequentialKey = ""

  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`)
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      GATEWAY_SECRET: randomBytes(32).toString("base64"),
      REDIS_URL: "redis://127.0.0.1:6379"
    }
    fake = await FakeOpenAI.start({ record: true })
    fake.setDefault(Behaviour.delay(10, twentyTokens))
    first = await GatewayProcess.start(env)
    // both policies exist before the second process reads any: it sees them from its first request
    concurrentKey = await keyUnderPolicy(first.baseUrl)
    sequentialKey = await keyUnderPolicy(first.baseUrl)
    rateConcurrentKey = await keyUnderRateLimit(first.baseUrl, 10)
    rateSequentialKey = await keyUnderRateLimit(first.baseUrl, 10)
    second = await GatewayProcess.start(env)
  }, 60_000)
  afterAll(async () => {
    await first?.stop()
    await second?.stop()
    await fake?.close()
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  it(
    "200 concurrent requests through both processes: never more than the limit admits reach the provider",
    async () => {
      fake.reset()
      fake.setDefault(Behaviour.delay(10, twentyTokens))
      const answers = await Promise.all(
        Array.from(
          { length: 200 },
          (_, index) => ask(index % 2 === 0 ? first.baseUrl : second.baseUrl, concurrentKey, fake)
        )
      )
      const admitted = answers.filter((answer) => answer.status === 200).length
      expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 412)).toEqual([])
      expect(admitted).toBeGreaterThan(0)
      expect(admitted).toBeLessThanOrEqual(10)
      expect(fake.requests).toHaveLength(admitted)
    },
    60_000
  )

  it("sequential requests alternating between the processes reach the provider exactly 10 times", async () => {
    fake.reset()
    fake.setDefault(twentyTokens)
    const statuses = []
    for (let index = 0; index < 14; index++) {
      statuses.push((await ask(index % 2 === 0 ? first.baseUrl : second.baseUrl, sequentialKey, fake)).status)
    }
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(4).fill(412)])
    expect(fake.requests).toHaveLength(10)
  })

  it("a request's usage is settled in Redis by the time its answer arrives: the other process reads it at once", async () => {
    fake.reset()
    fake.setDefault(twentyTokens)
    const created = await call(first.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "read", scopes: ["completions"] }
    })
    const policy = await call(first.baseUrl, "POST", "/v1/policies/usage-limits", {
      body: {
        conditions: [{ key: "api_key", value: created.body.id }],
        group_by: [{ key: "api_key" }],
        type: "tokens",
        credit_limit: 1000
      }
    })
    expect(policy.status).toBe(200)
    for (let index = 1; index <= 5; index++) {
      expect((await ask(first.baseUrl, created.body.key, fake)).status).toBe(200)
      const read = await call(second.baseUrl, "GET", `/v1/policies/usage-limits/${policy.body.id}?include_usage=true`)
      expect(read.body.value_key_usage_map[`api_key:${created.body.id}`]).toMatchObject({ usage: 20 * index })
    }
  })

  it("a requests-per-minute policy of 10 shared by both processes admits 10 of 200 concurrent requests", async () => {
    fake.reset()
    fake.setDefault(Behaviour.delay(10, twentyTokens))
    const answers = await Promise.all(
      Array.from(
        { length: 200 },
        (_, index) => ask(index % 2 === 0 ? first.baseUrl : second.baseUrl, rateConcurrentKey, fake)
      )
    )
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 429)).toEqual([])
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10)
    expect(fake.requests).toHaveLength(10)
  }, 60_000)

  it("and exactly 10 sequential requests alternating between the processes", async () => {
    fake.reset()
    fake.setDefault(twentyTokens)
    const statuses = []
    for (let index = 0; index < 13; index++) {
      statuses.push((await ask(index % 2 === 0 ? first.baseUrl : second.baseUrl, rateSequentialKey, fake)).status)
    }
    expect(statuses).toEqual([...Array(10).fill(200), ...Array(3).fill(429)])
  })
})

describe("usage counters while Redis is down", () => {
  let fake: FakeOpenAI.FakeOpenAI
  let redis: RedisServer.RedisServer

  beforeAll(async () => {
    fake = await FakeOpenAI.start()
    fake.setDefault(twentyTokens)
    redis = await RedisServer.start()
  })
  afterAll(async () => {
    await redis?.kill()
    await fake?.close()
  })

  it("closed (the default): 503 naming the counters, and nothing goes upstream", async () => {
    const gateway = await GatewayProcess.start({ REDIS_URL: redis.url })
    try {
      const key = await keyUnderPolicy(gateway.baseUrl, 1000)
      fake.reset()
      fake.setDefault(twentyTokens)
      expect((await ask(gateway.baseUrl, key, fake)).status).toBe(200)
      await redis.kill()
      const refused = await ask(gateway.baseUrl, key, fake)
      expect(refused.status).toBe(503)
      expect(refused.body.error.message).toContain("GATEWAY_LIMITS_ON_STORE_ERROR=closed")
      expect(fake.requests).toHaveLength(1)
    } finally {
      await gateway.stop()
    }
  }, 30_000)

  it("open: the request goes on uncounted, and the miss is logged", async () => {
    await redis.restart()
    const gateway = await GatewayProcess.start({ REDIS_URL: redis.url, GATEWAY_LIMITS_ON_STORE_ERROR: "open" })
    try {
      const key = await keyUnderPolicy(gateway.baseUrl, 1000)
      fake.reset()
      fake.setDefault(twentyTokens)
      await redis.kill()
      expect((await ask(gateway.baseUrl, key, fake)).status).toBe(200)
      expect(fake.requests).toHaveLength(1)
      await expect.poll(() => gateway.output()).toContain("let through uncounted")
      const metrics = await (await fetch(`${gateway.baseUrl}/metrics`)).text()
      expect(metrics).toMatch(/^gateway_usage_counter_misses_total(\{[^}]*\})? 1$/m)
    } finally {
      await gateway.stop()
    }
  }, 30_000)

  it("rate windows follow the same rule: closed answers 503 when a rate-limit policy cannot be checked", async () => {
    await redis.restart()
    const gateway = await GatewayProcess.start({ REDIS_URL: redis.url })
    try {
      const key = await keyUnderRateLimit(gateway.baseUrl, 1000)
      fake.reset()
      fake.setDefault(twentyTokens)
      expect((await ask(gateway.baseUrl, key, fake)).status).toBe(200)
      await redis.kill()
      const refused = await ask(gateway.baseUrl, key, fake)
      expect(refused.status).toBe(503)
      expect(fake.requests).toHaveLength(1)
    } finally {
      await gateway.stop()
    }
  }, 30_000)
})
