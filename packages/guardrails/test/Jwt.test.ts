import { assert, describe, it } from "@effect/vitest"
import { DefaultPlugin } from "@switchyard/guardrails"
import { Effect, Result } from "effect"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { createServer } from "node:http"
import { checkContext } from "./support/Fake.ts"

/** A JWKS on 127.0.0.1 serving one generated RS256 key; closed with the test's scope. */
const jwksServer = Effect.acquireRelease(
  Effect.promise(async () => {
    const pair = await generateKeyPair("RS256")
    const stranger = await generateKeyPair("RS256")
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256" }
    const server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ keys: [jwk] }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const sign = (key: typeof pair.privateKey, expiresIn: string | number = "5m") =>
      new SignJWT({ sub: "user-1" }).setProtectedHeader({ alg: "RS256", kid: "k1" }).setIssuedAt().setExpirationTime(
        expiresIn
      ).sign(key)
    return {
      uri: `http://127.0.0.1:${port}/jwks-${Math.random().toString(36).slice(2)}.json`,
      valid: await sign(pair.privateKey),
      expired: await sign(pair.privateKey, Math.floor(Date.now() / 1000) - 600),
      forged: await sign(stranger.privateKey),
      close: () => server.close()
    }
  }),
  (server) => Effect.sync(() => server.close())
)

const jwtCheck = (parameters: unknown) => {
  const check = DefaultPlugin.checks.find((c) => c.id === "default.jwt")
  const prepared = check?.prepare(parameters)
  if (prepared === undefined || Result.isFailure(prepared)) throw new Error("jwt did not prepare")
  return prepared.success
}

const withToken = (token: string) => checkContext("hello", { headers: { "x-user-token": `Bearer ${token}` } })

describe("default.jwt", () => {
  it.live("passes a token signed by a key of the JWKS", () =>
    Effect.gen(function*() {
      const jwks = yield* jwksServer
      const result = yield* jwtCheck({ jwksUri: jwks.uri, headerKey: "X-User-Token" })(withToken(jwks.valid))
      assert.isTrue(result.verdict)
      assert.deepStrictEqual(result.data, { sub: "user-1" })
    }).pipe(Effect.scoped))

  it.live("fails an expired token and a token signed by another key", () =>
    Effect.gen(function*() {
      const jwks = yield* jwksServer
      const check = jwtCheck({ jwksUri: jwks.uri, headerKey: "x-user-token" })
      assert.isFalse((yield* check(withToken(jwks.expired))).verdict)
      assert.isFalse((yield* check(withToken(jwks.forged))).verdict)
    }).pipe(Effect.scoped))

  it.live("with not, passes where the token is invalid", () =>
    Effect.gen(function*() {
      const jwks = yield* jwksServer
      const result = yield* jwtCheck({ jwksUri: jwks.uri, headerKey: "x-user-token", not: true })(
        withToken(jwks.forged)
      )
      assert.isTrue(result.verdict)
    }).pipe(Effect.scoped))
})
