import { Behaviour, FakeOpenAI } from "@switchyard/fake-providers"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, chatVia } from "./support/Admin.ts"
import { chatBody } from "./support/Fixtures.ts"
import * as GatewayProcess from "./support/GatewayProcess.ts"

type KeyObjectLike = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]

let fake: FakeOpenAI.FakeOpenAI
let gateway: GatewayProcess.GatewayProcess
let jwks: Server
let signingKey: KeyObjectLike
let strangerKey: KeyObjectLike

beforeAll(async () => {
  fake = await FakeOpenAI.start()
  const pair = await generateKeyPair("RS256")
  const stranger = await generateKeyPair("RS256")
  signingKey = pair.privateKey
  strangerKey = stranger.privateKey
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: "main", alg: "RS256", use: "sig" }
  jwks = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve))
  const address = jwks.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  gateway = await GatewayProcess.start({
    GATEWAY_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    GATEWAY_JWT_ISSUER: "https://issuer.test",
    GATEWAY_JWT_AUDIENCE: "switchyard"
  })
})

afterAll(async () => {
  await gateway?.stop()
  await fake?.close()
  jwks?.close()
})

const token = (options: {
  readonly key?: KeyObjectLike
  readonly kid?: string
  readonly issuer?: string
  readonly expiresIn?: string | number
  readonly scope?: string
  readonly workspace?: string
} = {}) =>
  new SignJWT({ scope: options.scope ?? "completions keys", workspace_id: options.workspace ?? "ws-jwt" })
    .setProtectedHeader({ alg: "RS256", kid: options.kid ?? "main" })
    .setSubject("user-1")
    .setIssuer(options.issuer ?? "https://issuer.test")
    .setAudience("switchyard")
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? "5m")
    .sign(options.key ?? signingKey)

const viaProvider = () => ({
  "x-gateway-provider": "openai",
  "x-gateway-custom-host": fake.baseUrl,
  authorization: "Bearer sk"
})

describe("JWT in x-gateway-api-key", () => {
  it("accepts a good token with its scopes and workspace", async () => {
    fake.enqueue(Behaviour.reply())
    const answer = await chatVia(gateway.baseUrl, await token(), viaProvider(), chatBody())
    expect(answer.status).toBe(200)
    const created = await call(gateway.baseUrl, "POST", "/v1/integrations", {
      key: await token(),
      body: { slug: "jwt-team", provider: "openai", api_key: "sk-jwt-team" }
    })
    expect(created.status).toBe(200)
    expect(created.body.workspace_id).toBe("ws-jwt")
  })

  it("refuses an expired token", async () => {
    const expired = await token({ expiresIn: Math.floor(Date.now() / 1000) - 60 })
    const answer = await chatVia(gateway.baseUrl, expired, viaProvider(), chatBody())
    expect(answer.status).toBe(401)
    expect(answer.body.error.message).toContain("expired")
  })

  it("refuses a token from another issuer", async () => {
    const answer = await chatVia(
      gateway.baseUrl,
      await token({ issuer: "https://evil.test" }),
      viaProvider(),
      chatBody()
    )
    expect(answer.status).toBe(401)
    expect(answer.body.error.message).toContain("issuer")
  })

  it("refuses a token signed by an unknown key", async () => {
    const answer = await chatVia(
      gateway.baseUrl,
      await token({ key: strangerKey, kid: "unknown" }),
      viaProvider(),
      chatBody()
    )
    expect(answer.status).toBe(401)
    expect(answer.body.error.message).toContain("unknown key")
  })

  it("refuses a route whose scope the token lacks", async () => {
    const answer = await call(gateway.baseUrl, "GET", "/v1/configs", { key: await token({ scope: "completions" }) })
    expect(answer.status).toBe(403)
  })
})
