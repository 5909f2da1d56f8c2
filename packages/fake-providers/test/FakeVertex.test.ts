import { FakeVertex } from "@switchyard/fake-providers"
import { createSign } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let fake: FakeVertex.FakeVertex
beforeAll(async () => {
  fake = await FakeVertex.start({ project: "p", region: "us-east5" })
})
afterAll(() => fake.close())

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

const assertion = (claims: Record<string, unknown>, key = fake.serviceAccount.private_key ?? "") => {
  const unsigned = `${b64({ alg: "RS256", typ: "JWT" })}.${b64(claims)}`
  return `${unsigned}.${createSign("RSA-SHA256").update(unsigned).sign(key, "base64url")}`
}

const grant = (jwt: string) =>
  fetch(`${fake.baseUrl}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: jwt })
  })

const goodClaims = () => ({
  iss: fake.serviceAccount.client_email,
  aud: fake.serviceAccount.token_uri,
  scope: "https://www.googleapis.com/auth/cloud-platform",
  iat: 1000,
  exp: 4600
})

describe("FakeVertex", () => {
  it("issues a token for an assertion signed by the service account", async () => {
    const response = await grant(assertion(goodClaims()))
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ token_type: "Bearer", expires_in: 3599 })
  })

  it("refuses an assertion with a bad signature or a wrong audience", async () => {
    const jwt = assertion(goodClaims())
    const tampered = `${jwt.slice(0, jwt.lastIndexOf(".") + 1)}${"A".repeat(20)}`
    expect((await grant(tampered)).status).toBe(400)
    expect((await grant(assertion({ ...goodClaims(), aud: "elsewhere" }))).status).toBe(400)
  })

  it("refuses model calls without an issued token", async () => {
    const response = await fetch(
      `${fake.baseUrl}/v1/projects/p/locations/us-east5/publishers/google/models/m:generateContent`,
      { method: "POST", headers: { authorization: "Bearer forged" }, body: "{}" }
    )
    expect(response.status).toBe(401)
  })

  it("answers Claude calls only with the Vertex anthropic_version and no model", async () => {
    const token = ((await (await grant(assertion(goodClaims()))).json()) as { access_token: string }).access_token
    const call = (payload: unknown) =>
      fetch(`${fake.baseUrl}/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-x:rawPredict`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(payload)
      })
    const messages = [{ role: "user", content: "hi" }]
    expect((await call({ anthropic_version: "vertex-2023-10-16", model: "claude-x", max_tokens: 5, messages })).status)
      .toBe(400)
    expect((await call({ anthropic_version: "vertex-2023-10-16", max_tokens: 5, messages })).status).toBe(200)
  })
})
