import { describe, expect, it } from "vitest"
import { call, chatVia, createKey } from "./support/Admin.ts"
import { chatBody, useGatewayAndFake } from "./support/Fixtures.ts"
import { ADMIN_KEY } from "./support/GatewayProcess.ts"

const harness = useGatewayAndFake()
const base = () => harness.gateway.baseUrl
let counter = 0
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${counter++}`

const integration = async (key: string = ADMIN_KEY, extra: Record<string, unknown> = {}) => {
  const slug = unique("team")
  const apiKey = `sk-${unique("stored-secret-value")}`
  const created = await call(base(), "POST", "/v1/integrations", {
    key,
    body: { slug, provider: "openai", api_key: apiKey, custom_host: harness.fake.baseUrl, ...extra }
  })
  expect(created.status).toBe(200)
  return { slug, apiKey, created }
}

describe("integrations", () => {
  it("x-gateway-provider: @slug reaches the provider with the stored key", async () => {
    const { apiKey, slug } = await integration()
    const answer = await chatVia(base(), ADMIN_KEY, { "x-gateway-provider": `@${slug}` }, chatBody())
    expect(answer.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`)
  })

  it("never mixes the caller's Authorization into a stored integration", async () => {
    const { apiKey, slug } = await integration()
    await chatVia(
      base(),
      ADMIN_KEY,
      { "x-gateway-provider": `@${slug}`, authorization: "Bearer sk-caller" },
      chatBody()
    )
    expect(harness.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`)
  })

  it("a model written @slug/model selects the integration and that model", async () => {
    const { apiKey, slug } = await integration()
    const answer = await chatVia(base(), ADMIN_KEY, {}, chatBody({ model: `@${slug}/gpt-4o-mini` }))
    expect(answer.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`)
    expect(harness.fake.requests[0]?.body).toMatchObject({ model: "gpt-4o-mini" })
  })

  it("a config target may name an integration, and cannot redirect its key to another host", async () => {
    const { apiKey, slug } = await integration()
    const config = { provider: `@${slug}`, custom_host: "http://127.0.0.1:9/v1", api_key: "sk-config" }
    const answer = await chatVia(base(), ADMIN_KEY, { "x-gateway-config": JSON.stringify(config) }, chatBody())
    expect(answer.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`)
  })

  it("never returns the stored secret, only a hint of it", async () => {
    const { apiKey, created, slug } = await integration()
    expect(created.text).not.toContain(apiKey)
    expect(created.body.settings.api_key).toBe(`****${apiKey.slice(-4)}`)
    const listed = await call(base(), "GET", "/v1/integrations")
    const got = await call(base(), "GET", `/v1/integrations/${slug}`)
    expect(listed.text).not.toContain(apiKey)
    expect(got.status).toBe(200)
    expect(got.text).not.toContain(apiKey)
  })

  it("answers 409 for a slug that is taken, and 400 naming a bad field", async () => {
    const { slug } = await integration()
    const again = await call(base(), "POST", "/v1/integrations", {
      body: { slug, provider: "openai", api_key: "sk-x" }
    })
    expect(again.status).toBe(409)
    const badSlug = await call(base(), "POST", "/v1/integrations", { body: { slug: "Bad Slug", provider: "openai" } })
    expect(badSlug.status).toBe(400)
    expect(badSlug.body.error.param).toBe("slug")
    const unknownField = await call(base(), "POST", "/v1/integrations", {
      body: { slug: unique("x"), provider: "openai", apikey: "sk" }
    })
    expect(unknownField.status).toBe(400)
    expect(unknownField.body.error.param).toBe("apikey")
  })

  it("stops working as soon as it is deleted", async () => {
    const { slug } = await integration()
    expect((await chatVia(base(), ADMIN_KEY, { "x-gateway-provider": `@${slug}` }, chatBody())).status).toBe(200)
    expect((await call(base(), "DELETE", `/v1/integrations/${slug}`)).status).toBe(200)
    const after = await chatVia(base(), ADMIN_KEY, { "x-gateway-provider": `@${slug}` }, chatBody())
    expect(after.status).toBe(404)
  })

  it("belongs to its workspace: another workspace can neither see nor use it", async () => {
    const { slug } = await integration()
    const outsider = await createKey(base(), ["keys", "completions"], { workspace: "ws-outsider" })
    expect((await call(base(), "GET", `/v1/integrations/${slug}`, { key: outsider })).status).toBe(404)
    const listed = await call(base(), "GET", "/v1/integrations", { key: outsider })
    expect(listed.text).not.toContain(slug)
    const used = await chatVia(base(), outsider, { "x-gateway-provider": `@${slug}` }, chatBody())
    expect(used.status).toBe(404)
    expect(harness.fake.requests).toHaveLength(0)
  })
})

describe("virtual keys", () => {
  it("x-gateway-virtual-key reaches the provider with the stored key; the token is shown once", async () => {
    const apiKey = `sk-${unique("vk-secret")}`
    const created = await call(base(), "POST", "/v1/virtual-keys", {
      body: { name: "legacy", provider: "openai", api_key: apiKey, custom_host: harness.fake.baseUrl }
    })
    expect(created.status).toBe(200)
    const token = created.body.key
    expect(token).toMatch(/^vk-/)
    expect(created.text).not.toContain(apiKey)
    const answer = await chatVia(base(), ADMIN_KEY, { "x-gateway-virtual-key": token }, chatBody())
    expect(answer.status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe(`Bearer ${apiKey}`)
    const listed = await call(base(), "GET", "/v1/virtual-keys")
    expect(listed.text).not.toContain(token)
    expect(listed.text).not.toContain(apiKey)
  })

  it("works as the virtual_key of a config, and stops when deleted", async () => {
    const created = await call(base(), "POST", "/v1/virtual-keys", {
      body: { name: "legacy", provider: "openai", api_key: "sk-in-config-vk", custom_host: harness.fake.baseUrl }
    })
    const config = JSON.stringify({ virtual_key: created.body.key })
    expect((await chatVia(base(), ADMIN_KEY, { "x-gateway-config": config }, chatBody())).status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-in-config-vk")
    expect((await call(base(), "DELETE", `/v1/virtual-keys/${created.body.id}`)).status).toBe(200)
    expect((await chatVia(base(), ADMIN_KEY, { "x-gateway-config": config }, chatBody())).status).toBe(404)
  })
})

describe("stored configs", () => {
  it("x-gateway-config: pc-… runs the stored config; an update takes effect", async () => {
    const created = await call(base(), "POST", "/v1/configs", {
      body: {
        name: "main",
        config: { provider: "openai", api_key: "sk-stored-config", custom_host: harness.fake.baseUrl }
      }
    })
    expect(created.status).toBe(200)
    expect(created.body.id).toMatch(/^pc-/)
    const id = created.body.id
    expect((await chatVia(base(), ADMIN_KEY, { "x-gateway-config": id }, chatBody())).status).toBe(200)
    expect(harness.fake.requests[0]?.headers.authorization).toBe("Bearer sk-stored-config")
    const updated = await call(base(), "PUT", `/v1/configs/${id}`, {
      body: { config: { provider: "openai", api_key: "sk-updated", custom_host: harness.fake.baseUrl } }
    })
    expect(updated.body.version).toBe(2)
    await chatVia(base(), ADMIN_KEY, { "x-gateway-config": id }, chatBody())
    expect(harness.fake.requests[1]?.headers.authorization).toBe("Bearer sk-updated")
  })

  it("is validated with the config schema when saved", async () => {
    const answer = await call(base(), "POST", "/v1/configs", {
      body: { name: "bad", config: { retry: { attempts: 9 } } }
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe("config.retry.attempts")
  })

  it("answers 404 for an unknown or another workspace's config id", async () => {
    const created = await call(base(), "POST", "/v1/configs", {
      body: { name: "mine", config: { provider: "openai", api_key: "sk", custom_host: harness.fake.baseUrl } }
    })
    const outsider = await createKey(base(), ["configs", "completions"], { workspace: "ws-config-outsider" })
    expect((await call(base(), "GET", `/v1/configs/${created.body.id}`, { key: outsider })).status).toBe(404)
    const used = await chatVia(base(), outsider, { "x-gateway-config": created.body.id }, chatBody())
    expect(used.status).toBe(404)
    expect((await chatVia(base(), ADMIN_KEY, { "x-gateway-config": "pc-nope" }, chatBody())).status).toBe(404)
  })
})
