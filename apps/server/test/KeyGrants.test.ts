import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, createKey } from "./support/Admin.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

// extensions.md, "Authentication and scopes": a key grants only what it holds.

let gateway: GatewayProcess.GatewayProcess
let jwks: Server
let sign: (claims: { readonly scope: string; readonly workspace: string }) => Promise<string>

beforeAll(async () => {
  const pair = await generateKeyPair("RS256")
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "grants", alg: "RS256", use: "sig" }
  jwks = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve))
  const address = jwks.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  sign = (claims) =>
    new SignJWT({ scope: claims.scope, workspace_id: claims.workspace })
      .setProtectedHeader({ alg: "RS256", kid: "grants" })
      .setSubject("grants-user")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(pair.privateKey)
  gateway = await GatewayProcess.start({ GATEWAY_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` })
})

afterAll(async () => {
  await gateway?.stop()
  jwks?.close()
})

const base = () => gateway.baseUrl

const createWith = (key: string, body: Record<string, unknown>) =>
  call(base(), "POST", "/v1/api-keys", { key, body: { name: "granted", ...body } })

/** The ids of the keys a workspace holds, as a key of that workspace lists them. */
const keyIds = async (key: string): Promise<ReadonlyArray<string>> => {
  const listed = await call(base(), "GET", "/v1/api-keys", { key })
  expect(listed.status).toBe(200)
  return listed.body.data.map((item: { readonly id: string }) => item.id)
}

const idOf = async (key: string, secret: string): Promise<string> => {
  const listed = await call(base(), "GET", "/v1/api-keys", { key })
  return listed.body.data.find((item: { readonly key_prefix: string }) => secret.startsWith(item.key_prefix)).id
}

const expectForbidden = (answer: { readonly status: number; readonly body: unknown }, names: string) => {
  expect(answer.status).toBe(403)
  expect(answer.body).toMatchObject({ error: { message: expect.stringContaining(names) } })
}

describe("creating API keys", () => {
  it("refuses the escalation of issue 10: keys and configs minting an admin key, and creates nothing", async () => {
    const caller = await createKey(base(), ["keys", "configs"], { workspace: "ws-grant-escalation" })
    const before = await keyIds(caller)
    expectForbidden(await createWith(caller, { scopes: ["admin"] }), "\"admin\"")
    expectForbidden(await createWith(caller, { scopes: ["keys", "admin"] }), "\"admin\"")
    expect(await keyIds(caller)).toEqual(before)
  })

  it("refuses a scope the caller lacks, naming it, and creates nothing", async () => {
    const caller = await createKey(base(), ["keys", "configs"], { workspace: "ws-grant-lacks" })
    const before = await keyIds(caller)
    const answer = await createWith(caller, { scopes: ["keys", "completions", "logs.read"] })
    expectForbidden(answer, "\"completions\", \"logs.read\"")
    expect(answer.body.error.message).not.toContain("\"keys\"")
    expect(await keyIds(caller)).toEqual(before)
  })

  it("refuses another workspace, naming it, and creates nothing there", async () => {
    const caller = await createKey(base(), ["keys"], { workspace: "ws-grant-home" })
    const neighbour = await createKey(base(), ["keys"], { workspace: "ws-grant-neighbour" })
    const before = await keyIds(neighbour)
    expectForbidden(
      await createWith(caller, { scopes: ["keys"], workspace_id: "ws-grant-neighbour" }),
      "\"ws-grant-neighbour\""
    )
    expect(await keyIds(neighbour)).toEqual(before)
  })

  it("lets a key with keys create a key with keys, or with any part of its own scopes, in its workspace", async () => {
    const caller = await createKey(base(), ["keys", "completions", "logs.read"], { workspace: "ws-grant-subset" })
    for (const scopes of [["keys"], ["completions"], ["keys", "logs.read"], ["keys", "completions", "logs.read"]]) {
      const created = await createWith(caller, { scopes })
      expect(created.status).toBe(200)
      expect(created.body).toMatchObject({ scopes, workspace_id: "ws-grant-subset" })
      expect(await keyIds(caller)).toContain(created.body.id)
    }
    const named = await createWith(caller, { scopes: ["keys"], workspace_id: "ws-grant-subset" })
    expect(named.status).toBe(200)
  })

  it("keeps a key made by a lesser key within that key's scopes", async () => {
    const caller = await createKey(base(), ["keys", "configs"], { workspace: "ws-grant-chain" })
    const child = await createWith(caller, { scopes: ["keys"] })
    expect(child.status).toBe(200)
    expectForbidden(await createWith(child.body.key, { scopes: ["configs"] }), "\"configs\"")
    expect((await call(base(), "GET", "/v1/configs", { key: child.body.key })).status).toBe(403)
  })

  it("refuses a key that would outlive its expiring creator, naming the expiry, and creates nothing", async () => {
    const expiresAt = Math.floor(Date.now() / 1000) + 3600
    const caller = await createKey(base(), ["keys"], { workspace: "ws-grant-expiry", expiresAt })
    const before = await keyIds(caller)
    expectForbidden(await createWith(caller, { scopes: ["keys"] }), `expires_at: this key expires at ${expiresAt}`)
    expectForbidden(await createWith(caller, { scopes: ["keys"], expires_at: expiresAt + 1 }), "expires_at")
    expect(await keyIds(caller)).toEqual(before)
    const within = await createWith(caller, { scopes: ["keys"], expires_at: expiresAt })
    expect(within.status).toBe(200)
    expect(within.body).toMatchObject({ expires_at: expiresAt })
  })

  it("lets the admin key grant any scope in any workspace", async () => {
    const created = await call(base(), "POST", "/v1/api-keys", {
      body: { name: "tenant admin", scopes: ["admin"], workspace_id: "ws-grant-tenant" }
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ scopes: ["admin"], workspace_id: "ws-grant-tenant" })
  })
})

describe("revoking API keys", () => {
  it("refuses a lesser key revoking a key that holds more, and the greater key keeps working", async () => {
    const greater = await createKey(base(), ["keys", "configs"], { workspace: "ws-grant-revoke" })
    const lesser = await createKey(base(), ["keys"], { workspace: "ws-grant-revoke" })
    const answer = await call(base(), "DELETE", `/v1/api-keys/${await idOf(lesser, greater)}`, { key: lesser })
    expectForbidden(answer, "\"configs\"")
    expect((await call(base(), "GET", "/v1/configs", { key: greater })).status).toBe(200)
  })

  it("lets a key revoke a key that holds no more than it does", async () => {
    const greater = await createKey(base(), ["keys", "configs"], { workspace: "ws-grant-revoke-down" })
    const lesser = await createKey(base(), ["keys"], { workspace: "ws-grant-revoke-down" })
    const answer = await call(base(), "DELETE", `/v1/api-keys/${await idOf(greater, lesser)}`, { key: greater })
    expect(answer.status).toBe(200)
    expect((await call(base(), "GET", "/v1/api-keys", { key: lesser })).status).toBe(401)
  })

  it("finds no key of another workspace to revoke", async () => {
    const caller = await createKey(base(), ["keys"], { workspace: "ws-grant-revoke-a" })
    const stranger = await createKey(base(), ["keys"], { workspace: "ws-grant-revoke-b" })
    const answer = await call(base(), "DELETE", `/v1/api-keys/${await idOf(stranger, stranger)}`, { key: caller })
    expect(answer.status).toBe(404)
    expect((await call(base(), "GET", "/v1/api-keys", { key: stranger })).status).toBe(200)
  })
})

describe("JWT principals follow the same rule", () => {
  it("refuses an admin key and another workspace, and grants what the token holds", async () => {
    const token = await sign({ scope: "keys configs", workspace: "ws-grant-jwt" })
    expectForbidden(await createWith(token, { scopes: ["admin"] }), "\"admin\"")
    expectForbidden(await createWith(token, { scopes: ["completions"] }), "\"completions\"")
    expectForbidden(await createWith(token, { scopes: ["keys"], workspace_id: "ws-elsewhere" }), "\"ws-elsewhere\"")
    const created = await createWith(token, { scopes: ["keys", "configs"] })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ scopes: ["keys", "configs"], workspace_id: "ws-grant-jwt" })
    expect(await keyIds(token)).toEqual([created.body.id])
  })

  it("lets an admin token grant any scope in any workspace", async () => {
    const token = await sign({ scope: "admin", workspace: "ws-grant-jwt-admin" })
    const created = await createWith(token, { scopes: ["admin"], workspace_id: "ws-grant-jwt-other" })
    expect(created.status).toBe(200)
    expect(created.body.workspace_id).toBe("ws-grant-jwt-other")
  })
})
