/**
 * Which requests a usage-limit policy applies to and under which value key it counts them, end to
 * end: a gateway process and the OpenAI fake answering 20 tokens a call, policies on `model`,
 * `virtual_key`, `provider` and `metadata.<key>` conditions and group keys, and `*`.
 */
import { Behaviour } from "@switchyard/fake-providers"
import { describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody, useGatewayAndFake } from "./support/Fixtures.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl

const TOKENS_PER_CALL = 20

/** A fresh API key: each test's policies carry a condition on it, so they see only its requests. */
const newKey = async () => {
  const created = await call(base(), "POST", "/v1/api-keys", { body: { name: "matching", scopes: ["completions"] } })
  expect(created.status, created.text).toBe(200)
  return { id: created.body.id as string, key: created.body.key as string }
}

/** A tokens policy of 50: at 20 tokens a call, three calls are admitted and the fourth refused. */
const createPolicy = async (conditions: ReadonlyArray<unknown>, groupBy: ReadonlyArray<unknown>) => {
  const created = await call(base(), "POST", "/v1/policies/usage-limits", {
    body: { conditions, group_by: groupBy, type: "tokens", credit_limit: 50 }
  })
  expect(created.status, created.text).toBe(200)
  return created.body.id as string
}

const usageOf = async (id: string) => {
  const read = await call(base(), "GET", `/v1/policies/usage-limits/${id}?include_usage=true`)
  expect(read.status, read.text).toBe(200)
  const map = read.body.value_key_usage_map as Record<string, { usage: number }>
  return Object.fromEntries(Object.entries(map).map(([valueKey, entry]) => [valueKey, entry.usage]))
}

const answering = () =>
  harness.fake.setDefault(Behaviour.json(200, {
    id: "chatcmpl-fixed",
    object: "chat.completion",
    created: 0,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop", logprobs: null }],
    usage: { prompt_tokens: TOKENS_PER_CALL / 2, completion_tokens: TOKENS_PER_CALL / 2, total_tokens: TOKENS_PER_CALL }
  }))

const viaProvider = (key: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  chatVia(base(), key, {
    "x-gateway-provider": "openai",
    "x-gateway-custom-host": harness.fake.baseUrl,
    authorization: "Bearer sk-upstream",
    ...headers
  }, chatBody({ max_tokens: 16, ...body }))

/** The statuses of `times` sequential calls. */
const statuses = async (times: number, send: () => Promise<{ readonly status: number }>) => {
  const seen: Array<number> = []
  for (let index = 0; index < times; index++) seen.push((await send()).status)
  return seen
}

const createVirtualKey = async (name: string) => {
  const created = await call(base(), "POST", "/v1/virtual-keys", {
    body: { name, provider: "openai", api_key: `sk-${name}`, custom_host: harness.fake.baseUrl }
  })
  expect(created.status, created.text).toBe(200)
  return { id: created.body.id as string, token: created.body.key as string }
}

describe("usage-limit matching on model", () => {
  it("a policy on one model neither counts nor refuses another", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(
      [{ key: "api_key", value: keyId }, { key: "model", value: "gpt-4o-mini" }],
      [{ key: "model" }]
    )
    expect(await statuses(4, () => viaProvider(key, { model: "gpt-4o" }))).toEqual([200, 200, 200, 200])
    expect(await usageOf(id)).toEqual({})
    expect(await statuses(4, () => viaProvider(key))).toEqual([200, 200, 200, 412])
    // the budget of gpt-4o-mini is spent; gpt-4o still goes through, uncounted
    expect((await viaProvider(key, { model: "gpt-4o" })).status).toBe(200)
    expect(await usageOf(id)).toEqual({ "model:gpt-4o-mini": 3 * TOKENS_PER_CALL })
    expect(harness.fake.requests).toHaveLength(8)
  })

  it("grouped by provider and model, each model has a budget of its own", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(
      [{ key: "api_key", value: keyId }, { key: "model", value: "*" }],
      [{ key: "provider" }, { key: "model" }]
    )
    expect(await statuses(4, () => viaProvider(key))).toEqual([200, 200, 200, 412])
    expect(await statuses(4, () => viaProvider(key, { model: "gpt-4o" }))).toEqual([200, 200, 200, 412])
    expect(await usageOf(id)).toEqual({
      "provider:openai,model:gpt-4o-mini": 3 * TOKENS_PER_CALL,
      "provider:openai,model:gpt-4o": 3 * TOKENS_PER_CALL
    })
  })
})

describe("usage-limit matching on virtual_key", () => {
  it("counts per virtual key under its id, never its token", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const first = await createVirtualKey("matching-one")
    const second = await createVirtualKey("matching-two")
    const id = await createPolicy([{ key: "api_key", value: keyId }], [{ key: "virtual_key" }])
    const via = (token: string) => () => chatVia(base(), key, { "x-gateway-virtual-key": token }, chatBody())
    expect(await statuses(4, via(first.token))).toEqual([200, 200, 200, 412])
    expect(await statuses(2, via(second.token))).toEqual([200, 200])
    const usage = await usageOf(id)
    expect(usage).toEqual({
      [`virtual_key:${first.id}`]: 3 * TOKENS_PER_CALL,
      [`virtual_key:${second.id}`]: 2 * TOKENS_PER_CALL
    })
    const read = await call(base(), "GET", `/v1/policies/usage-limits/${id}?include_usage=true`)
    expect(read.text).not.toContain(first.token)
    expect(read.text).not.toContain(second.token)
  })

  it("a policy on one virtual key leaves the others and a provider header alone", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const limited = await createVirtualKey("matching-limited")
    const free = await createVirtualKey("matching-free")
    const id = await createPolicy(
      [{ key: "api_key", value: keyId }, { key: "virtual_key", value: limited.id }],
      [{ key: "api_key" }]
    )
    const via = (token: string) => () => chatVia(base(), key, { "x-gateway-virtual-key": token }, chatBody())
    expect(await statuses(4, via(limited.token))).toEqual([200, 200, 200, 412])
    expect(await statuses(4, via(free.token))).toEqual([200, 200, 200, 200])
    expect((await viaProvider(key)).status).toBe(200)
    expect(await usageOf(id)).toEqual({ [`api_key:${keyId}`]: 3 * TOKENS_PER_CALL })
  })
})

describe("usage-limit matching with *", () => {
  it("matches a request that has no value for the key, counted under an empty value", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(
      [{ key: "api_key", value: keyId }, { key: "virtual_key", value: "*" }, { key: "metadata.team", value: "*" }],
      [{ key: "metadata.team" }]
    )
    const team = (name: string) => ({ "x-gateway-metadata": JSON.stringify({ team: name }) })
    expect(await statuses(4, () => viaProvider(key))).toEqual([200, 200, 200, 412])
    expect(await statuses(2, () => viaProvider(key, {}, team("red")))).toEqual([200, 200])
    expect(await usageOf(id)).toEqual({
      "metadata.team:": 3 * TOKENS_PER_CALL,
      "metadata.team:red": 2 * TOKENS_PER_CALL
    })
  })

  it("a condition on a metadata value applies only to requests carrying it", async () => {
    answering()
    const { id: keyId, key } = await newKey()
    const id = await createPolicy(
      [{ key: "api_key", value: keyId }, { key: "metadata.env", value: "prod" }],
      [{ key: "metadata.env" }]
    )
    const env = (name: string) => ({ "x-gateway-metadata": JSON.stringify({ env: name }) })
    expect(await statuses(4, () => viaProvider(key, {}, env("prod")))).toEqual([200, 200, 200, 412])
    expect(await statuses(3, () => viaProvider(key, {}, env("dev")))).toEqual([200, 200, 200])
    expect((await viaProvider(key)).status).toBe(200)
    expect(await usageOf(id)).toEqual({ "metadata.env:prod": 3 * TOKENS_PER_CALL })
  })
})
