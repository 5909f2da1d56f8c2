/** GET /v1/circuits over HTTP: a circuit tripped through the fake provider is listed open. */
import { Behaviour } from "@switchyard/fake-providers"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { call, chatVia, createKey } from "./support/Admin.ts"
import { chatBody, useGatewayAndFake } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()

const guardedConfig = (secret: string) =>
  JSON.stringify({
    provider: "openai",
    api_key: secret,
    custom_host: harness.fake.baseUrl,
    override_params: { model: "gpt-4o-mini" },
    cb_config: { failure_threshold: 2, cooldown_interval: 30_000 }
  })

describe("GET /v1/circuits", () => {
  it("lists a circuit closed with its failures, then open once it trips, never with the credential", async () => {
    const secret = `sk-circuit-${randomBytes(6).toString("hex")}`
    const headers = { "x-gateway-config": guardedConfig(secret) }
    harness.fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    expect((await chatVia(harness.gateway.baseUrl, GatewayProcess.ADMIN_KEY, headers, chatBody())).status).toBe(500)

    const closed = await call(harness.gateway.baseUrl, "GET", "/v1/circuits")
    expect(closed.status).toBe(200)
    expect(closed.body.object).toBe("list")
    expect(closed.body.data).toEqual([
      expect.objectContaining({
        provider: "openai",
        host: harness.fake.baseUrl,
        model: "gpt-4o-mini",
        state: "closed",
        failures: 1,
        opened_at: null
      })
    ])

    const before = Math.floor(Date.now() / 1000)
    harness.fake.enqueue(Behaviour.json(500, { error: { message: "down" } }))
    await chatVia(harness.gateway.baseUrl, GatewayProcess.ADMIN_KEY, headers, chatBody())
    expect((await chatVia(harness.gateway.baseUrl, GatewayProcess.ADMIN_KEY, headers, chatBody())).status).toBe(503)

    const open = await call(harness.gateway.baseUrl, "GET", "/v1/circuits")
    const [circuit] = open.body.data
    expect(circuit).toMatchObject({ state: "open", failures: 2, consecutive_openings: 1 })
    expect(circuit.opened_at).toBeGreaterThanOrEqual(before)
    expect(circuit.retry_after_ms).toBeGreaterThan(25_000)
    expect(circuit.retry_after_ms).toBeLessThanOrEqual(30_000)
    expect(open.text).not.toContain(secret)
  })

  it("is for admin keys only: circuits guard every workspace's targets", async () => {
    const configs = await createKey(harness.gateway.baseUrl, ["configs", "keys", "logs.read", "policies.read"])
    const denied = await call(harness.gateway.baseUrl, "GET", "/v1/circuits", { key: configs })
    expect(denied.status).toBe(403)
    expect(denied.body.error.message).toContain("admin")
    expect((await call(harness.gateway.baseUrl, "GET", "/v1/circuits", { key: "" })).status).toBe(401)
  })
})
