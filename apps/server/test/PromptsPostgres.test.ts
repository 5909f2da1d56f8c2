import { FakeOpenAI } from "@switchyard/fake-providers"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

/** Prompts kept in Postgres, as replicas keep them: the same routes, on a database of the test's own. */
describe("prompt templates on Postgres", () => {
  const database = `switchyard_prompts_${randomBytes(4).toString("hex")}`
  const psql = (sql: string) => execFileSync("psql", ["-h", "127.0.0.1", "-U", "postgres", "-d", "test", "-c", sql])
  let fake: FakeOpenAI.FakeOpenAI
  let gateway: GatewayProcess.GatewayProcess

  beforeAll(async () => {
    psql(`CREATE DATABASE ${database}`)
    fake = await FakeOpenAI.start()
    gateway = await GatewayProcess.start({
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
      GATEWAY_SECRET: randomBytes(32).toString("base64")
    })
  }, 60_000)
  afterAll(async () => {
    await gateway?.stop()
    await fake?.close()
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  })

  it("creates, versions, publishes, lists, renders and completes", async () => {
    const template = (text: string) => [{ role: "user", content: text }]
    const created = await call(gateway.baseUrl, "POST", "/v1/prompts", {
      body: { name: "pg", model: "gpt-4o-mini", template: template("one {{x}}"), parameters: { top_p: 0.5 } }
    })
    expect(created.status).toBe(200)
    const id: string = created.body.id
    const second = await call(gateway.baseUrl, "POST", `/v1/prompts/${id}/versions`, {
      body: { model: "gpt-4o-mini", template: template("two {{x}}") }
    })
    expect(second.body.version).toBe(2)
    expect((await call(gateway.baseUrl, "PUT", `/v1/prompts/${id}/publish`, { body: { version: 2 } })).status).toBe(
      200
    )
    await call(gateway.baseUrl, "POST", "/v1/prompts", { body: { name: "pg-2", template: template("x") } })
    const page = await call(gateway.baseUrl, "GET", "/v1/prompts?limit=1&order=asc")
    expect(page.body).toMatchObject({ has_more: true, first_id: id })
    const rendered = await call(gateway.baseUrl, "POST", `/v1/prompts/${id}@1/render`, {
      body: { variables: { x: 1 } }
    })
    expect(rendered.body).toEqual({ model: "gpt-4o-mini", top_p: 0.5, messages: template("one 1") })
    const answer = await call(gateway.baseUrl, "POST", `/v1/prompts/${id}/completions`, {
      body: { variables: { x: "y" } },
      headers: { "x-gateway-provider": "openai", "x-gateway-custom-host": fake.baseUrl, authorization: "Bearer sk" }
    })
    expect(answer.status).toBe(200)
    expect(answer.body.body.choices[0].message.content).toBe("echo: two y")
    expect((await call(gateway.baseUrl, "GET", `/v1/prompts/${id}/versions`)).body.data).toHaveLength(2)
    expect((await call(gateway.baseUrl, "DELETE", `/v1/prompts/${id}`)).status).toBe(200)
    expect((await call(gateway.baseUrl, "GET", `/v1/prompts/${id}`)).status).toBe(404)
  })
})
