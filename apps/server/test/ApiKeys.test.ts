import { describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import { chatBody, useGatewayAndFake, viaProviderHeader } from "./support/Fixtures.ts"

const harness = useGatewayAndFake()

const chat = (key: string) =>
  call(harness.gateway.baseUrl, "POST", "/v1/chat/completions", {
    key,
    headers: viaProviderHeader(harness.fake),
    body: chatBody()
  })

describe("API keys", () => {
  it("shows the secret once, lists keys without it, and the key works", async () => {
    const created = await call(harness.gateway.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "ci", scopes: ["completions"] }
    })
    expect(created.status).toBe(200)
    expect(created.body.key).toMatch(/^sy-/)
    expect(created.body.scopes).toEqual(["completions"])
    const listed = await call(harness.gateway.baseUrl, "GET", "/v1/api-keys")
    expect(listed.body.object).toBe("list")
    expect(listed.body.data.some((k: { id: string }) => k.id === created.body.id)).toBe(true)
    expect(listed.text).not.toContain(created.body.key)
    expect((await chat(created.body.key)).status).toBe(200)
  })

  it("refuses a revoked key at once", async () => {
    const key = await createKey(harness.gateway.baseUrl, ["completions"])
    expect((await chat(key)).status).toBe(200)
    const listed = await call(harness.gateway.baseUrl, "GET", "/v1/api-keys")
    const id = listed.body.data.find((k: { key_prefix: string }) => key.startsWith(k.key_prefix)).id
    const revoked = await call(harness.gateway.baseUrl, "DELETE", `/v1/api-keys/${id}`)
    expect(revoked.status).toBe(200)
    expect(revoked.body.revoked_at).toBeTypeOf("number")
    const refused = await chat(key)
    expect(refused.status).toBe(401)
  })

  it("refuses an expired key", async () => {
    const key = await createKey(harness.gateway.baseUrl, ["completions"], { expiresAt: 1_000 })
    expect((await chat(key)).status).toBe(401)
  })

  it("refuses an unknown key", async () => {
    expect((await chat("sy-not-a-real-key")).status).toBe(401)
  })

  it("rejects a key request with an unknown scope, naming the field", async () => {
    const answer = await call(harness.gateway.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "x", scopes: ["root"] }
    })
    expect(answer.status).toBe(400)
    expect(answer.body.error.param).toBe("scopes[0]")
  })

  it("rejects a key request with no scopes or a misspelt field", async () => {
    const empty = await call(harness.gateway.baseUrl, "POST", "/v1/api-keys", { body: { name: "x", scopes: [] } })
    expect(empty.status).toBe(400)
    expect(empty.body.error.param).toBe("scopes")
    const misspelt = await call(harness.gateway.baseUrl, "POST", "/v1/api-keys", {
      body: { name: "x", scopes: ["keys"], scope: "keys" }
    })
    expect(misspelt.status).toBe(400)
    expect(misspelt.body.error.param).toBe("scope")
  })

  it("keeps a non-admin key from creating keys in another workspace", async () => {
    const keys = await createKey(harness.gateway.baseUrl, ["keys"])
    const answer = await call(harness.gateway.baseUrl, "POST", "/v1/api-keys", {
      key: keys,
      body: { name: "x", scopes: ["keys"], workspace_id: "someone-else" }
    })
    expect(answer.status).toBe(403)
  })

  it("does not revoke another workspace's key", async () => {
    const other = await createKey(harness.gateway.baseUrl, ["keys", "completions"], { workspace: "ws-other" })
    const ownList = await call(harness.gateway.baseUrl, "GET", "/v1/api-keys", { key: other })
    const otherId = ownList.body.data[0].id
    const answer = await call(harness.gateway.baseUrl, "DELETE", `/v1/api-keys/${otherId}`)
    expect(answer.status).toBe(404)
    expect((await chat(other)).status).toBe(200)
  })
})
