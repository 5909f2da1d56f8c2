import { describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody, json, useGatewayAndFake } from "./support/Fixtures.ts"
import { twentyTokens } from "./support/Usage.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl

const newKey = async () => {
  const created = await call(base(), "POST", "/v1/api-keys", {
    body: { name: "rates", scopes: ["completions", "policies.read", "policies.write"] }
  })
  expect(created.status).toBe(200)
  return { id: created.body.id as string, key: created.body.key as string }
}

const policyFor = (keyId: string, extra: Record<string, unknown> = {}) => ({
  name: "per key",
  conditions: [{ key: "api_key", value: keyId }],
  group_by: [{ key: "api_key" }],
  type: "requests",
  unit: "rpm",
  value: 3,
  ...extra
})

const createPolicy = async (body: unknown) => {
  const created = await call(base(), "POST", "/v1/policies/rate-limits", { body })
  expect(created.status, created.text).toBe(200)
  return created.body.id as string
}

const ask = (key: string, headers: Record<string, string> = {}) =>
  fetch(`${base()}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-gateway-api-key": key,
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl,
      authorization: "Bearer sk-upstream",
      ...headers
    },
    body: JSON.stringify(chatBody({ max_tokens: 16 }))
  })

describe("rate-limit policies over HTTP", () => {
  it("creates, reads, lists, updates and archives a policy", async () => {
    const created = await call(base(), "POST", "/v1/policies/rate-limits", { body: policyFor("k") })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: "policy_rate_limits",
      name: "per key",
      type: "requests",
      unit: "rpm",
      value: 3,
      status: "active"
    })
    const id = created.body.id
    expect((await call(base(), "GET", `/v1/policies/rate-limits/${id}`)).body.id).toBe(id)
    const updated = await call(base(), "PUT", `/v1/policies/rate-limits/${id}`, { body: { value: 10, unit: "rph" } })
    expect(updated.body).toMatchObject({ value: 10, unit: "rph" })
    expect((await call(base(), "DELETE", `/v1/policies/rate-limits/${id}`)).body.status).toBe("archived")
    expect((await call(base(), "GET", `/v1/policies/rate-limits/${id}`)).status).toBe(404)
    const archived = await call(base(), "GET", "/v1/policies/rate-limits?status=archived")
    expect(archived.body.data.map((policy: { id: string }) => policy.id)).toContain(id)
  })

  it.each([
    [{ value: 0 }, "value"],
    [{ value: 1.5 }, "value"],
    [{ unit: "rps" }, "unit"],
    [{ type: "cost" }, "type"],
    [{ group_by: [] }, "group_by"],
    [{ colour: "red" }, "colour"]
  ])("answers 400 naming the field for %j", async (override, param) => {
    const answer = await call(base(), "POST", "/v1/policies/rate-limits", { body: policyFor("k", override) })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe(param)
  })
})

describe("rate-limit enforcement", () => {
  it("a requests policy admits `value` requests a minute, with the -requests trio, then 429 naming it", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId))
    const answers = []
    for (let index = 0; index < 3; index++) answers.push(await ask(key))
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200])
    expect(answers.map((answer) => answer.headers.get("x-ratelimit-remaining-requests"))).toEqual(["2", "1", "0"])
    expect(answers[0]?.headers.get("x-ratelimit-limit-requests")).toBe("3")
    expect(answers[0]?.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+s$/)
    expect(answers[0]?.headers.get("x-ratelimit-limit-tokens")).toBeNull()
    const refused = await ask(key)
    expect(refused.status).toBe(429)
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    const body = await json(refused)
    expect(body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" })
    expect(body.error.message).toContain(id)
    expect(harness.fake.requests).toHaveLength(3)
    const metrics = await (await fetch(`${base()}/metrics`)).text()
    expect(metrics).toMatch(/^gateway_policy_refusals_total(\{[^}]*\})? [1-9]/m)
  })

  it("a tokens policy admits while the window holds fewer tokens than its value, with the -tokens trio", async () => {
    const { id: keyId, key } = await newKey()
    await createPolicy(policyFor(keyId, { type: "tokens", value: 30 }))
    harness.fake.setDefault(twentyTokens)
    const first = await ask(key)
    expect(first.status).toBe(200)
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("30")
    const second = await ask(key)
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("10")
    expect(second.headers.get("x-ratelimit-limit-requests")).toBeNull()
    expect((await ask(key)).status).toBe(429)
    expect(harness.fake.requests).toHaveLength(2)
  })

  it("a requests policy counts cache hits too", async () => {
    const { id: keyId, key } = await newKey()
    await createPolicy(policyFor(keyId, { value: 2 }))
    const config = JSON.stringify({
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      cache: { mode: "simple" }
    })
    const cached = () =>
      chatVia(base(), key, { "x-gateway-config": config }, chatBody({ messages: [{ role: "user", content: "rate" }] }))
    expect([(await cached()).status, (await cached()).status, (await cached()).status]).toEqual([200, 200, 429])
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("does not apply to management routes, nor to requests its conditions do not match", async () => {
    const { id: keyId, key } = await newKey()
    await createPolicy(policyFor(keyId, { value: 1, conditions: [{ key: "metadata.tier", value: "free" }] }))
    for (let index = 0; index < 3; index++) {
      expect((await call(base(), "GET", "/v1/policies/rate-limits", { key })).status).toBe(200)
    }
    expect([(await ask(key)).status, (await ask(key)).status]).toEqual([200, 200])
    const free = { "x-gateway-metadata": JSON.stringify({ tier: "free" }) }
    expect([(await ask(key, free)).status, (await ask(key, free)).status]).toEqual([200, 429])
  })
})
