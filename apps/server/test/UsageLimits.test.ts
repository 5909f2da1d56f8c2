import { Behaviour } from "@switchyard/fake-providers"
import { describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody, sseData, useGatewayAndFake } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"
import { twentyTokens } from "./support/Usage.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl

/** A fresh key (its id and secret), so each test's policies match its own requests only. */
const newKey = async (scopes: ReadonlyArray<string> = ["completions", "policies.read", "policies.write"]) => {
  const created = await call(base(), "POST", "/v1/api-keys", { body: { name: "limits", scopes } })
  expect(created.status).toBe(200)
  return { id: created.body.id as string, key: created.body.key as string }
}

const policyFor = (keyId: string, extra: Record<string, unknown> = {}) => ({
  name: "team budget",
  conditions: [{ key: "api_key", value: keyId }],
  group_by: [{ key: "api_key" }],
  type: "tokens",
  credit_limit: 50,
  ...extra
})

const createPolicy = async (body: unknown) => {
  const created = await call(base(), "POST", "/v1/policies/usage-limits", { body })
  expect(created.status, created.text).toBe(200)
  return created.body.id as string
}

const ask = (key: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  chatVia(base(), key, {
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": harness.fake.baseUrl,
    authorization: "Bearer sk-upstream",
    ...headers
  }, chatBody({ max_tokens: 16, ...extra }))

const usageOf = async (id: string) => {
  const read = await call(base(), "GET", `/v1/policies/usage-limits/${id}?include_usage=true`)
  expect(read.status, read.text).toBe(200)
  return read.body.value_key_usage_map as Record<
    string,
    { usage: number; alerted: boolean; last_reset_at: string | null }
  >
}

describe("usage-limits policies over HTTP", () => {
  it("creates a policy and reads back every field of 2.6", async () => {
    const { id: keyId } = await newKey()
    const created = await call(base(), "POST", "/v1/policies/usage-limits", {
      body: policyFor(keyId, { alert_threshold: 40, periodic_reset: "monthly" })
    })
    expect(created.status).toBe(200)
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), object: "policy_usage_limits" })
    const read = await call(base(), "GET", `/v1/policies/usage-limits/${created.body.id}`)
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({
      id: created.body.id,
      object: "policy_usage_limits",
      type: "tokens",
      status: "active",
      name: "team budget",
      conditions: [{ key: "api_key", value: keyId }],
      group_by: [{ key: "api_key" }],
      credit_limit: 50,
      alert_threshold: 40,
      periodic_reset: "monthly"
    })
    expect(typeof read.body.workspace_id).toBe("string")
    expect(read.body.organisation_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Date(read.body.created_at).toISOString()).toBe(read.body.created_at)
    expect(read.body).not.toHaveProperty("value_key_usage_map")
  })

  it.each([
    [{ name: "x".repeat(256) }, "name"],
    [{ alert_threshold: 50 }, "alert_threshold"],
    [{ conditions: [] }, "conditions"],
    [{ group_by: [] }, "group_by"],
    [{ type: "requests" }, "type"],
    [{ credit_limit: -1 }, "credit_limit"],
    [{ conditions: [{ key: "colour", value: "red" }] }, "conditions[0].key"],
    [{ periodic_reset: "daily" }, "periodic_reset"]
  ])("answers 400 naming the field for %j", async (override, param) => {
    const answer = await call(base(), "POST", "/v1/policies/usage-limits", { body: policyFor("k", override) })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe(param)
    expect(answer.body.error.message).toContain(param)
  })

  it("needs policies.write to create and policies.read to read", async () => {
    const reader = await newKey(["policies.read"])
    const writer = await newKey(["policies.write"])
    const id = await createPolicy(policyFor(reader.id))
    expect((await call(base(), "POST", "/v1/policies/usage-limits", { key: reader.key, body: policyFor("k") })).status)
      .toBe(403)
    expect((await call(base(), "GET", `/v1/policies/usage-limits/${id}`, { key: writer.key })).status).toBe(403)
    expect((await call(base(), "GET", `/v1/policies/usage-limits/${id}`, { key: reader.key })).status).toBe(200)
  })

  it("keeps workspaces apart: another workspace's policy is 404 and absent from its list", async () => {
    const id = await createPolicy(policyFor("k"))
    const other = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "other", scopes: ["policies.read", "policies.write"], workspace_id: "ws-limits-other" }
    })
    const key = other.body.key as string
    expect((await call(base(), "GET", `/v1/policies/usage-limits/${id}`, { key })).status).toBe(404)
    expect((await call(base(), "PUT", `/v1/policies/usage-limits/${id}`, { key, body: { name: "x" } })).status).toBe(
      404
    )
    const listed = await call(base(), "GET", "/v1/policies/usage-limits", { key })
    expect(listed.body.data).toEqual([])
  })

  it("updates, archives (404 unless status=archived, listed by status) and refuses a bad update", async () => {
    const id = await createPolicy(policyFor("k", { alert_threshold: 10 }))
    const updated = await call(base(), "PUT", `/v1/policies/usage-limits/${id}`, {
      body: { name: "renamed", credit_limit: 500, periodic_reset: "weekly" }
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      name: "renamed",
      credit_limit: 500,
      alert_threshold: 10,
      periodic_reset: "weekly"
    })
    const bad = await call(base(), "PUT", `/v1/policies/usage-limits/${id}`, { body: { alert_threshold: 600 } })
    expect(bad.status).toBe(400)
    expect(bad.body.error.param).toBe("alert_threshold")
    const unknown = await call(base(), "PUT", `/v1/policies/usage-limits/${id}`, { body: { type: "cost" } })
    expect(unknown.status).toBe(400)
    expect((await call(base(), "DELETE", `/v1/policies/usage-limits/${id}`)).body.status).toBe("archived")
    expect((await call(base(), "GET", `/v1/policies/usage-limits/${id}`)).status).toBe(404)
    const archived = await call(base(), "GET", `/v1/policies/usage-limits/${id}?status=archived`)
    expect(archived.body.status).toBe("archived")
    const active = await call(base(), "GET", "/v1/policies/usage-limits")
    expect(active.body.data.map((policy: { id: string }) => policy.id)).not.toContain(id)
    const listed = await call(base(), "GET", "/v1/policies/usage-limits?status=archived")
    expect(listed.body.data.map((policy: { id: string }) => policy.id)).toContain(id)
    expect((await call(base(), "GET", "/v1/policies/usage-limits?status=gone")).body.error.param).toBe("status")
  })
})

describe("usage-limits enforcement", () => {
  it("at 20 tokens a call, a limit of 50 admits 3 sequential calls, then 412 naming the policy", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId))
    harness.fake.setDefault(twentyTokens)
    const statuses = []
    for (let call = 0; call < 5; call++) statuses.push((await ask(key)).status)
    expect(statuses).toEqual([200, 200, 200, 412, 412])
    expect(harness.fake.requests).toHaveLength(3)
    const refused = await ask(key)
    expect(refused.body.error).toMatchObject({ type: "usage_limit_error", code: "usage_limit_exceeded" })
    expect(refused.body.error.message).toContain(id)
    expect(refused.body.error.message).toContain("team budget")
    expect(await usageOf(id)).toEqual({ [`api_key:${keyId}`]: { usage: 60, last_reset_at: null, alerted: false } })
  })

  it("counts per value key: each key of a group has its own budget", async () => {
    const first = await newKey()
    const second = await newKey()
    const id = await createPolicy({
      conditions: [{ key: "workspace_id", value: "*" }, { key: "metadata.team", value: "blue" }],
      group_by: [{ key: "api_key" }],
      type: "tokens",
      credit_limit: 30
    })
    harness.fake.setDefault(twentyTokens)
    const team = { "x-gateway-metadata": JSON.stringify({ team: "blue" }) }
    expect((await ask(first.key, {}, team)).status).toBe(200)
    expect((await ask(first.key, {}, team)).status).toBe(200)
    expect((await ask(first.key, {}, team)).status).toBe(412)
    expect((await ask(second.key, {}, team)).status).toBe(200)
    // a request the conditions do not match is not counted
    expect((await ask(first.key)).status).toBe(200)
    const usage = await usageOf(id)
    expect(usage[`api_key:${first.id}`]?.usage).toBe(40)
    expect(usage[`api_key:${second.id}`]?.usage).toBe(20)
    await call(base(), "DELETE", `/v1/policies/usage-limits/${id}`)
  })

  it("reset clears the usage; an archived policy is no longer enforced", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 20 }))
    harness.fake.setDefault(twentyTokens)
    expect((await ask(key)).status).toBe(200)
    expect((await ask(key)).status).toBe(412)
    const reset = await call(base(), "POST", `/v1/policies/usage-limits/${id}/reset`)
    expect(reset.status).toBe(200)
    expect(await usageOf(id)).toEqual({})
    expect((await ask(key)).status).toBe(200)
    expect((await ask(key)).status).toBe(412)
    await call(base(), "DELETE", `/v1/policies/usage-limits/${id}`)
    expect((await ask(key)).status).toBe(200)
  })

  it("records the alert threshold once it is crossed", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 100, alert_threshold: 30 }))
    harness.fake.setDefault(twentyTokens)
    await ask(key)
    expect((await usageOf(id))[`api_key:${keyId}`]?.alerted).toBe(false)
    await ask(key)
    expect((await usageOf(id))[`api_key:${keyId}`]?.alerted).toBe(true)
    expect(harness.gateway.output()).toContain("crossed its alert threshold")
  })

  it("never admits more than the limit allows under 50 concurrent requests", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 200 }))
    harness.fake.setDefault(Behaviour.delay(20, twentyTokens))
    const answers = await Promise.all(Array.from({ length: 50 }, () => ask(key)))
    const admitted = answers.filter((answer) => answer.status === 200).length
    expect(answers.every((answer) => answer.status === 200 || answer.status === 412)).toBe(true)
    expect(harness.fake.requests).toHaveLength(admitted)
    // at 20 tokens a call a limit of 200 admits at most 10, however many run at once
    expect(admitted).toBeGreaterThan(0)
    expect(admitted).toBeLessThanOrEqual(10)
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBe(admitted * 20)
  })

  it("counts a stream's usage, asking the provider for it without showing the client the usage chunk", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 1000 }))
    const answer = await ask(key, { stream: true })
    expect(answer.status).toBe(200)
    const events = sseData(answer.text)
    expect(events.at(-1)).toBe("[DONE]")
    for (const event of events.slice(0, -1)) expect(JSON.parse(event)).not.toHaveProperty("usage")
    const sent = harness.fake.requests[0]?.body as { stream_options?: { include_usage?: boolean } }
    expect(sent.stream_options?.include_usage).toBe(true)
    // the fake counts words: "Be brief. hello there" is 4 prompt tokens, "echo: hello there" 3
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBe(7)
  })

  it("passes the usage chunk on when the client asked for it", async () => {
    const { id: keyId, key } = await newKey()
    await createPolicy(policyFor(keyId, { credit_limit: 1000 }))
    const answer = await ask(key, { stream: true, stream_options: { include_usage: true } })
    const events = sseData(answer.text).slice(0, -1).map((event) => JSON.parse(event))
    expect(events.at(-1).usage).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 })
  })

  it("settles a stream cut half way to what it had used", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 100_000 }))
    harness.fake.enqueue(Behaviour.cutStream(2))
    await ask(key, { stream: true }).catch(() => undefined)
    const usage = (await usageOf(id))[`api_key:${keyId}`]?.usage ?? 0
    // no usage chunk arrived: the prompt's bound plus the bytes sent, never nothing, never the whole reservation
    expect(usage).toBeGreaterThan(0)
    expect(usage).toBeLessThan(1000)
  })

  it("prices a cost policy from the catalog, and refuses an unpriced model with 412 naming it", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { type: "cost", credit_limit: 1 }))
    harness.fake.setDefault(twentyTokens)
    expect((await ask(key)).status).toBe(200)
    // gpt-4o-mini: 10 prompt tokens at $0.15/M and 10 completion tokens at $0.60/M
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBeCloseTo((10 * 0.15 + 10 * 0.6) / 1e6, 12)
    const unpriced = await ask(key, { model: "my-own-model" })
    expect(unpriced.status).toBe(412)
    expect(unpriced.body.error.code).toBe("model_not_priced")
    expect(unpriced.body.error.message).toContain("my-own-model")
    expect(harness.fake.requests).toHaveLength(1)
  })

  it("prices an integration's model by the provider behind its @slug, and matches that provider", async () => {
    const { id: keyId, key } = await newKey()
    const slug = `priced-${keyId.slice(-8)}`
    const integration = await call(base(), "POST", "/v1/integrations", {
      body: { slug, provider: "openai", api_key: "sk-stored", custom_host: harness.fake.baseUrl }
    })
    expect(integration.status, integration.text).toBe(200)
    const id = await createPolicy(policyFor(keyId, {
      type: "cost",
      credit_limit: 1,
      conditions: [{ key: "api_key", value: keyId }, { key: "provider", value: "openai" }],
      group_by: [{ key: "integration" }]
    }))
    harness.fake.setDefault(twentyTokens)
    const answer = await chatVia(base(), key, { "x-gateway-provider": `@${slug}` }, chatBody({ max_tokens: 16 }))
    expect(answer.status, answer.text).toBe(200)
    expect((await usageOf(id))[`integration:${slug}`]?.usage).toBeCloseTo((10 * 0.15 + 10 * 0.6) / 1e6, 12)
  })

  it("prices with an integration's own pricing, which wins over the catalog, for any model", async () => {
    const { id: keyId, key } = await newKey()
    const slug = `own-${keyId.slice(-8)}`
    const integration = await call(base(), "POST", "/v1/integrations", {
      body: {
        slug,
        provider: "openai",
        api_key: "sk-stored",
        custom_host: harness.fake.baseUrl,
        pricing: { input_per_million: 1000, output_per_million: 2000 }
      }
    })
    expect(integration.status, integration.text).toBe(200)
    expect(integration.body.settings.pricing).toEqual({ input_per_million: 1000, output_per_million: 2000 })
    const bad = await call(base(), "POST", "/v1/integrations", {
      body: { slug: `${slug}-bad`, provider: "openai", pricing: { input_per_million: -1, output_per_million: 0 } }
    })
    expect(bad.body.error.param).toBe("pricing.input_per_million")
    const id = await createPolicy(policyFor(keyId, { type: "cost", credit_limit: 1 }))
    harness.fake.setDefault(twentyTokens)
    const answer = await chatVia(base(), key, { "x-gateway-provider": `@${slug}` }, chatBody({ model: "my-own-model" }))
    expect(answer.status, answer.text).toBe(200)
    // 10 prompt tokens at $1000/M and 10 completion tokens at $2000/M
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBeCloseTo(0.03, 12)
  })

  it("counts nothing for a cached answer", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 1000 }))
    harness.fake.setDefault(twentyTokens)
    const config = JSON.stringify({
      provider: "openai",
      api_key: "sk-upstream",
      custom_host: harness.fake.baseUrl,
      cache: { mode: "simple" }
    })
    const cached = (content: string) =>
      chatVia(base(), key, { "x-gateway-config": config }, chatBody({ messages: [{ role: "user", content }] }))
    expect((await cached("cache me")).status).toBe(200)
    expect((await cached("cache me")).status).toBe(200)
    expect(harness.fake.requests).toHaveLength(1)
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBe(20)
  })

  it("counts embeddings and completions too, from the usage the provider reports", async () => {
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(policyFor(keyId, { credit_limit: 100_000 }))
    const headers = {
      "x-gateway-provider": "openai",
      "x-gateway-custom-host": harness.fake.baseUrl,
      authorization: "Bearer sk-upstream"
    }
    const embedded = await call(base(), "POST", "/v1/embeddings", {
      key,
      headers,
      body: { model: "text-embedding-3-small", input: "one two three" }
    })
    expect(embedded.status, embedded.text).toBe(200)
    const afterEmbeddings = (await usageOf(id))[`api_key:${keyId}`]?.usage
    expect(afterEmbeddings).toBe(embedded.body.usage.total_tokens)
    const completed = await call(base(), "POST", "/v1/completions", {
      key,
      headers,
      body: { model: "gpt-3.5-turbo-instruct", prompt: "say hi", max_tokens: 8 }
    })
    expect(completed.status, completed.text).toBe(200)
    expect((await usageOf(id))[`api_key:${keyId}`]?.usage).toBe(
      (afterEmbeddings ?? 0) + completed.body.usage.total_tokens
    )
  })
})

describe("usage counters of the embedded default", () => {
  it("survive a restart on the same data dir", async () => {
    harness.fake.setDefault(twentyTokens)
    const first = await GatewayProcess.start()
    const via = (baseUrl: string, key: string) =>
      chatVia(baseUrl, key, {
        "x-gateway-provider": "openai",
        "x-gateway-custom-host": harness.fake.baseUrl,
        authorization: "Bearer sk-upstream"
      }, chatBody({ max_tokens: 16 }))
    const created = await call(first.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "restart", scopes: ["completions"] }
    })
    const policy = await call(first.baseUrl, "POST", "/v1/policies/usage-limits", {
      body: policyFor(created.body.id, { credit_limit: 60 })
    })
    expect([(await via(first.baseUrl, created.body.key)).status, (await via(first.baseUrl, created.body.key)).status])
      .toEqual([200, 200])
    await first.stop()
    const second = await GatewayProcess.start({ GATEWAY_DATA_DIR: first.dataDir })
    try {
      const read = await call(second.baseUrl, "GET", `/v1/policies/usage-limits/${policy.body.id}?include_usage=true`)
      expect(read.body.value_key_usage_map[`api_key:${created.body.id}`].usage).toBe(40)
      expect([
        (await via(second.baseUrl, created.body.key)).status,
        (await via(second.baseUrl, created.body.key)).status
      ])
        .toEqual([200, 412])
    } finally {
      await second.stop()
    }
  }, 30_000)
})
