import { FakeOpenAI } from "@switchyard/fake-providers"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia, createKey } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

let fake: FakeOpenAI.FakeOpenAI
beforeAll(async () => {
  fake = await FakeOpenAI.start()
})
afterAll(() => fake.close())

/** Stores a key, an integration and a config; answers what is needed to use them again. */
const storeEverything = async (baseUrl: string) => {
  const key = await createKey(baseUrl, ["completions", "keys", "configs"])
  const integration = await call(baseUrl, "POST", "/v1/integrations", {
    body: { slug: "kept", provider: "openai", api_key: "sk-kept", custom_host: fake.baseUrl }
  })
  const config = await call(baseUrl, "POST", "/v1/configs", {
    body: { name: "kept", config: { provider: "openai", api_key: "sk-kept-config", custom_host: fake.baseUrl } }
  })
  expect(integration.status).toBe(200)
  expect(config.status).toBe(200)
  return { key, configId: String(config.body.id) }
}

const expectEverythingWorks = async (baseUrl: string, stored: { key: string; configId: string }) => {
  fake.reset()
  expect((await chatVia(baseUrl, stored.key, { "x-gateway-provider": "@kept" }, chatBody())).status).toBe(200)
  expect(fake.requests[0]?.headers.authorization).toBe("Bearer sk-kept")
  expect((await chatVia(baseUrl, stored.key, { "x-gateway-config": stored.configId }, chatBody())).status).toBe(200)
  expect(fake.requests[1]?.headers.authorization).toBe("Bearer sk-kept-config")
}

describe("a restart keeps every key, integration and config", () => {
  it("on the embedded SQLite data dir", async () => {
    const first = await GatewayProcess.start()
    const stored = await storeEverything(first.baseUrl)
    await first.stop()
    const second = await GatewayProcess.start({ GATEWAY_DATA_DIR: first.dataDir })
    try {
      await expectEverythingWorks(second.baseUrl, stored)
    } finally {
      await second.stop()
    }
  })

  it("on Postgres, with the shared GATEWAY_SECRET", async () => {
    const database = `switchyard_e2e_${randomBytes(4).toString("hex")}`
    const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
    psql(`CREATE DATABASE ${database}`)
    const env = {
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      GATEWAY_SECRET: randomBytes(32).toString("base64")
    }
    try {
      const first = await GatewayProcess.start(env)
      const stored = await storeEverything(first.baseUrl)
      await first.stop()
      const second = await GatewayProcess.start(env)
      try {
        await expectEverythingWorks(second.baseUrl, stored)
      } finally {
        await second.stop()
      }
    } finally {
      psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    }
  })

  it("refuses to start on Postgres without GATEWAY_SECRET", async () => {
    await expect(
      GatewayProcess.start({ DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test", GATEWAY_SECRET: undefined })
    ).rejects.toThrow(/GATEWAY_SECRET/)
  })
})
