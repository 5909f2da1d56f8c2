/**
 * A replica killed while its request holds a usage-limit reservation: the other replica refuses
 * against that reservation until its lease (GATEWAY_LIMITS_RESERVATION_LEASE_SECONDS, 2 s here)
 * lapses, then admits again. Two gateway processes on one Postgres, with the counters in Redis or
 * in Postgres.
 */
import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { twentyTokens } from "./support/Usage.ts"

const LEASE_SECONDS = 2

const database = `switchyard_lease_${randomBytes(4).toString("hex")}`
const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
let fake: FakeOpenAI.FakeOpenAI

beforeAll(async () => {
  psql(`CREATE DATABASE ${database}`)
  fake = await FakeOpenAI.start({ record: true })
})
afterAll(async () => {
  await fake?.close()
  psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
})

const ask = (baseUrl: string, key: string) =>
  chatVia(baseUrl, key, {
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": fake.baseUrl,
    authorization: "Bearer sk-upstream"
  }, chatBody({ max_tokens: 1000 }))

const until = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

for (const store of [{ name: "Redis", env: { REDIS_URL: "redis://127.0.0.1:6379" } }, { name: "Postgres", env: {} }]) {
  describe(`a killed replica's reservation, counters in ${store.name}`, () => {
    let killed: GatewayProcess.GatewayProcess
    let survivor: GatewayProcess.GatewayProcess

    beforeAll(async () => {
      const env = {
        DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
        GATEWAY_SECRET: randomBytes(32).toString("base64"),
        GATEWAY_LIMITS_RESERVATION_LEASE_SECONDS: String(LEASE_SECONDS),
        ...store.env
      }
      killed = await GatewayProcess.start(env)
      survivor = await GatewayProcess.start(env)
    }, 60_000)
    afterAll(async () => {
      await killed?.stop("SIGKILL")
      await survivor?.stop()
    })

    it("holds the budget until its lease lapses, then frees it", async () => {
      const created = await call(killed.baseUrl, "POST", "/v1/api-keys", {
        body: { name: "lease", scopes: ["completions"] }
      })
      expect(created.status).toBe(200)
      const key = created.body.key as string
      // max_tokens 1000 bounds a call above the limit: one call reserves the whole budget
      const policy = await call(killed.baseUrl, "POST", "/v1/policies/usage-limits", {
        body: {
          conditions: [{ key: "api_key", value: created.body.id }],
          group_by: [{ key: "api_key" }],
          type: "tokens",
          credit_limit: 200
        }
      })
      expect(policy.status).toBe(200)
      fake.reset()
      fake.enqueue(Behaviour.stall())
      fake.setDefault(twentyTokens)
      // the request reaches the provider, which never answers; its process is killed
      void ask(killed.baseUrl, key).catch(() => undefined)
      await until(() => fake.requests.length === 1, 10_000)
      const reservedAt = Date.now()
      await killed.stop("SIGKILL")
      const refused = await ask(survivor.baseUrl, key)
      // only meaningful while the lease still runs; on a machine too slow for that the test says so
      expect(Date.now() - reservedAt, "the refusal was checked within the lease").toBeLessThan(LEASE_SECONDS * 1000)
      expect(refused.status, refused.text).toBe(412)
      let answer = refused
      while (answer.status === 412 && Date.now() - reservedAt < LEASE_SECONDS * 1000 + 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        answer = await ask(survivor.baseUrl, key)
      }
      expect(answer.status, answer.text).toBe(200)
      // the reservation was taken a little before the provider saw the request
      expect(Date.now() - reservedAt).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000 - 500)
      expect(fake.requests).toHaveLength(2)
    }, 30_000)
  })
}
