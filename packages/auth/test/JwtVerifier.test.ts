import { afterAll, assert, describe, it } from "@effect/vitest"
import { JwtVerifier } from "@switchyard/auth"
import { GatewayError, type Principal } from "@switchyard/core"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { TestClock } from "effect/testing"
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT, UnsecuredJWT } from "jose"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"

// Test time, in seconds since the epoch; every test sets the TestClock to it first.
const NOW = 1_900_000_000
const atNow = TestClock.setTime(NOW * 1000)

interface SigningKey {
  readonly kid: string
  readonly alg: "RS256" | "ES256" | "EdDSA"
  readonly privateKey: CryptoKey
  readonly jwk: JWK
}

const signingKey = async (kid: string, alg: SigningKey["alg"] = "RS256"): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair(alg)
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } }
}

const [keyA, keyB, keyC, keyEs, keyEd] = await Promise.all([
  signingKey("key-a"),
  signingKey("key-b"),
  signingKey("key-c"),
  signingKey("key-es", "ES256"),
  signingKey("key-ed", "EdDSA")
])
const jwks = (...keys: ReadonlyArray<SigningKey>) => ({ keys: keys.map((key) => key.jwk) })

const CLAIMS: JWTPayload = {
  sub: "user-1",
  workspace_id: "ws-1",
  scope: "completions prompts.read",
  iss: "https://idp.test",
  aud: "switchyard",
  iat: NOW - 10,
  exp: NOW + 3600
}

const sign = (claims: JWTPayload = CLAIMS, key: SigningKey = keyA, header: { readonly kid?: string } = {}) =>
  Effect.promise(() =>
    new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...header }).sign(key.privateKey)
  )

const withClaims = (changes: Record<string, unknown>): JWTPayload => {
  const claims: Record<string, unknown> = { ...CLAIMS, ...changes }
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete claims[name]
  return claims
}

// ---- a JWKS file in a temp dir

const dir = await mkdtemp(join(tmpdir(), "switchyard-jwks-"))
afterAll(() => rm(dir, { recursive: true, force: true }))
const fileWith = async (name: string, content: string) => {
  const path = join(dir, name)
  await writeFile(path, content)
  return path
}
const jwksFile = await fileWith("jwks.json", JSON.stringify(jwks(keyA, keyEs, keyEd)))
const fileLayer = (options: Omit<JwtVerifier.Options, "jwksFile"> = {}) =>
  JwtVerifier.layer({ jwksFile, issuer: "https://idp.test", audience: "switchyard", ...options })

const verify = (token: string) => Effect.flatMap(JwtVerifier.JwtVerifier, (verifier) => verifier.verify(token))
const rejection = (token: string) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(verify(token))
    assert.instanceOf(error, GatewayError.Unauthorized)
    assert.strictEqual(GatewayError.toHttp(error).status, 401)
    assert.notInclude(error.message, token)
    return error.message
  })

// ---- a JWKS served on 127.0.0.1, counting its fetches

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("expected a TCP address")
  return address.port
}

const jwksServer = (initial: unknown, status = 200) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const state = { body: JSON.stringify(initial), fetches: 0 }
      const server = createServer((_, response) => {
        state.fetches++
        response.writeHead(status, { "content-type": "application/json" }).end(state.body)
      })
      const port = await listen(server)
      return {
        server,
        url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
        fetches: () => state.fetches,
        serve: (next: unknown) => {
          state.body = JSON.stringify(next)
        }
      }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

// A port that was just free: nothing listens there any more.
const closedPortUrl = Effect.promise(async () => {
  const server = createServer()
  const port = await listen(server)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/jwks.json`
})

describe("JwtVerifier.looksLikeJwt", () => {
  it.effect("recognises a signed JWT", () =>
    Effect.gen(function*() {
      assert.isTrue(JwtVerifier.looksLikeJwt(yield* sign()))
    }))

  it("recognises an unsecured JWT, whose signature segment is empty", () => {
    assert.isTrue(JwtVerifier.looksLikeJwt(new UnsecuredJWT(CLAIMS).encode()))
  })

  it("does not take API keys or dotted strings without a JSON header for JWTs", () => {
    assert.isFalse(JwtVerifier.looksLikeJwt("sy-admin-0123456789abcdefABCDEF_-"))
    assert.isFalse(JwtVerifier.looksLikeJwt("a.b.c"))
    assert.isFalse(JwtVerifier.looksLikeJwt(`${Buffer.from("{\"typ\":\"JWT\"}").toString("base64url")}.e30.c2ln`))
    assert.isFalse(JwtVerifier.looksLikeJwt("eyJhbGciOiJSUzI1NiJ9.e30"))
    assert.isFalse(JwtVerifier.looksLikeJwt("eyJhbGciOiJSUzI1NiJ9.e30.c2ln.extra"))
  })
})

describe("JwtVerifier with a JWKS URL", () => {
  it.effect("accepts a good token as jwt:<sub> in its workspace with its scopes", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const principal = yield* verify(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url, issuer: "https://idp.test", audience: "switchyard" }))
      )
      const expected: Principal.Principal = {
        keyId: "jwt:user-1",
        workspaceId: "ws-1",
        scopes: new Set(["completions", "prompts.read"])
      }
      assert.deepStrictEqual(principal, expected)
    }))

  it.effect("fetches the key set once and serves later verifications from its cache", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const token = yield* sign()
      yield* Effect.gen(function*() {
        for (let i = 0; i < 3; i++) yield* verify(token)
      }).pipe(Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url })))
      assert.strictEqual(idp.fetches(), 1)
    }))

  it.effect("refetches the key set once when a token names a kid it has not seen (key rotation)", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const before = yield* sign(CLAIMS, keyA)
      const after = yield* sign(CLAIMS, keyB)
      yield* Effect.gen(function*() {
        yield* verify(before)
        yield* verify(before)
        assert.strictEqual(idp.fetches(), 1)
        idp.serve(jwks(keyB))
        assert.strictEqual((yield* verify(after)).keyId, "jwt:user-1")
        yield* verify(after)
        assert.strictEqual(idp.fetches(), 2)
      }).pipe(Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url, jwksCooldown: 0 })))
    }))

  it.effect("rejects a kid that is not in the key set even after a refetch", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const message = yield* Effect.gen(function*() {
        yield* verify(yield* sign())
        return yield* rejection(yield* sign(CLAIMS, keyC))
      }).pipe(Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url, jwksCooldown: 0 })))
      assert.strictEqual(message, "x-gateway-api-key: JWT signed by an unknown key")
      assert.strictEqual(idp.fetches(), 2)
    }))

  it.effect("does not refetch for an unknown kid within the cooldown", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const message = yield* Effect.gen(function*() {
        yield* verify(yield* sign())
        return yield* rejection(yield* sign(CLAIMS, keyC))
      }).pipe(Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url })))
      assert.strictEqual(message, "x-gateway-api-key: JWT signed by an unknown key")
      assert.strictEqual(idp.fetches(), 1)
    }))

  it.effect("answers 401 JWKS unavailable, and logs a warning, when the JWKS endpoint is down", () =>
    Effect.gen(function*() {
      yield* atNow
      const logged: Array<string> = []
      const capture = Logger.layer([Logger.make(({ logLevel, message }) => logged.push(`${logLevel} ${message}`))])
      const message = yield* rejection(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layer({ jwksUrl: yield* closedPortUrl })),
        Effect.provide(capture)
      )
      assert.strictEqual(message, "x-gateway-api-key: JWKS unavailable")
      assert.deepStrictEqual(logged, ["Warn JWT rejected: JWKS unavailable"])
    }))

  it.effect("answers 401 JWKS unavailable when the endpoint answers an error status", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer({ error: "boom" }, 500)
      const message = yield* rejection(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url })),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(message, "x-gateway-api-key: JWKS unavailable")
    }))

  it.effect("answers 401 JWKS unavailable when the endpoint serves something that is not a key set", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer({ keys: "none" })
      const message = yield* rejection(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layer({ jwksUrl: idp.url })),
        Effect.provide(Logger.layer([]))
      )
      assert.strictEqual(message, "x-gateway-api-key: JWKS unavailable")
    }))

  it.effect("refuses a JWKS URL that is not http(s) when the layer is built", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Layer.build(JwtVerifier.layer({ jwksUrl: "file:///etc/jwks.json" })))
      assert.strictEqual(error._tag, "JwtConfigError")
      assert.include(error.message, "GATEWAY_JWKS_URL")
    }))
})

describe("JwtVerifier with a JWKS file", () => {
  const expectRejection = (token: Effect.Effect<string>, expected: string, options?: JwtVerifier.Options) =>
    Effect.gen(function*() {
      yield* atNow
      const message = yield* rejection(yield* token).pipe(Effect.provide(fileLayer(options)))
      assert.strictEqual(message, expected)
    })
  const principalOf = (token: Effect.Effect<string>, options?: JwtVerifier.Options) =>
    Effect.gen(function*() {
      yield* atNow
      return yield* verify(yield* token).pipe(Effect.provide(fileLayer(options)))
    })

  it.effect("accepts a good token", () =>
    Effect.gen(function*() {
      const principal = yield* principalOf(sign())
      assert.strictEqual(principal.keyId, "jwt:user-1")
      assert.strictEqual(principal.workspaceId, "ws-1")
    }))

  it.effect("accepts ES256 and EdDSA tokens from keys in the set", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* principalOf(sign(CLAIMS, keyEs))).keyId, "jwt:user-1")
      assert.strictEqual((yield* principalOf(sign(CLAIMS, keyEd))).keyId, "jwt:user-1")
    }))

  it.effect("rejects an expired token once the clock passes exp and the tolerance", () =>
    Effect.gen(function*() {
      yield* atNow
      const token = yield* sign(withClaims({ exp: NOW + 60 }))
      yield* Effect.gen(function*() {
        yield* TestClock.adjust("64 seconds") // exp + 4 s: within the 5 s tolerance
        yield* verify(token)
        yield* TestClock.adjust("2 seconds")
        assert.strictEqual(yield* rejection(token), "x-gateway-api-key: JWT expired")
      }).pipe(Effect.provide(fileLayer()))
    }))

  it.effect("applies a configured clock tolerance", () =>
    expectRejection(sign(withClaims({ exp: NOW - 1 })), "x-gateway-api-key: JWT expired", { clockTolerance: 0 }))

  it.effect("rejects a token before its nbf, and accepts it once the clock reaches it", () =>
    Effect.gen(function*() {
      yield* atNow
      const token = yield* sign(withClaims({ nbf: NOW + 120 }))
      yield* Effect.gen(function*() {
        assert.strictEqual(yield* rejection(token), "x-gateway-api-key: JWT not yet valid")
        yield* TestClock.adjust("2 minutes")
        assert.strictEqual((yield* verify(token)).keyId, "jwt:user-1")
      }).pipe(Effect.provide(fileLayer()))
    }))

  it.effect("rejects another issuer", () =>
    expectRejection(sign(withClaims({ iss: "https://evil.test" })), "x-gateway-api-key: JWT issuer not accepted"))

  it.effect("rejects a token without iss when an issuer is configured", () =>
    expectRejection(sign(withClaims({ iss: undefined })), "x-gateway-api-key: JWT issuer not accepted"))

  it.effect("rejects another audience", () =>
    expectRejection(sign(withClaims({ aud: "someone-else" })), "x-gateway-api-key: JWT audience not accepted"))

  it.effect("accepts an audience array that contains the configured audience", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* principalOf(sign(withClaims({ aud: ["other", "switchyard"] })))).keyId, "jwt:user-1")
    }))

  it.effect("checks neither iss nor aud when none is configured", () =>
    Effect.gen(function*() {
      yield* atNow
      const token = yield* sign(withClaims({ iss: "anyone", aud: "anything" }))
      const principal = yield* verify(token).pipe(Effect.provide(JwtVerifier.layer({ jwksFile })))
      assert.strictEqual(principal.keyId, "jwt:user-1")
    }))

  it.effect("rejects a token signed by a key that is not in the file", () =>
    expectRejection(sign(CLAIMS, keyB), "x-gateway-api-key: JWT signed by an unknown key"))

  it.effect("rejects a token whose signature was tampered with", () =>
    expectRejection(
      Effect.map(sign(), (token) => {
        const [header, payload, signature] = token.split(".")
        const flipped = `${signature?.startsWith("A") ? "B" : "A"}${signature?.slice(1)}`
        return `${header}.${payload}.${flipped}`
      }),
      "x-gateway-api-key: JWT signature invalid"
    ))

  it.effect("rejects a token whose claims were changed after signing", () =>
    expectRejection(
      Effect.map(sign(), (token) => {
        const [header, , signature] = token.split(".")
        const forged = Buffer.from(JSON.stringify({ ...CLAIMS, scope: "admin" })).toString("base64url")
        return `${header}.${forged}.${signature}`
      }),
      "x-gateway-api-key: JWT signature invalid"
    ))

  it.effect("rejects an unsecured token (alg none)", () =>
    expectRejection(
      Effect.succeed(new UnsecuredJWT(CLAIMS).encode()),
      "x-gateway-api-key: JWT algorithm not accepted"
    ))

  it.effect("rejects an HS256 token, even one keyed with a public key's bytes", () =>
    expectRejection(
      Effect.promise(() =>
        new SignJWT(CLAIMS).setProtectedHeader({ alg: "HS256", kid: keyA.kid }).sign(
          new TextEncoder().encode(JSON.stringify(keyA.jwk))
        )
      ),
      "x-gateway-api-key: JWT algorithm not accepted"
    ))

  it.effect("rejects a token whose header names no algorithm as malformed", () =>
    expectRejection(Effect.succeed("e30.e30.c2ln"), "x-gateway-api-key: JWT malformed"))

  it.effect("rejects a token without sub", () =>
    expectRejection(sign(withClaims({ sub: undefined })), "x-gateway-api-key: JWT lacks the sub claim"))

  it.effect("rejects a token without workspace_id, naming the claim", () =>
    expectRejection(
      sign(withClaims({ workspace_id: undefined })),
      "x-gateway-api-key: JWT lacks the workspace_id claim"
    ))

  it.effect("rejects a workspace_id that is not a string", () =>
    expectRejection(sign(withClaims({ workspace_id: 7 })), "x-gateway-api-key: JWT lacks the workspace_id claim"))

  it.effect("reads scopes from a space-separated scope claim and drops unknown ones", () =>
    Effect.gen(function*() {
      const principal = yield* principalOf(sign(withClaims({ scope: "  files openid  batches profile " })))
      assert.deepStrictEqual(principal.scopes, new Set<Principal.Scope>(["files", "batches"]))
    }))

  it.effect("reads scopes from a scopes array and drops unknown ones", () =>
    Effect.gen(function*() {
      const principal = yield* principalOf(
        sign(withClaims({ scope: undefined, scopes: ["admin", "superuser", "logs.read"] }))
      )
      assert.deepStrictEqual(principal.scopes, new Set<Principal.Scope>(["admin", "logs.read"]))
    }))

  it.effect("takes the union of scope and scopes when a token carries both", () =>
    Effect.gen(function*() {
      const principal = yield* principalOf(sign(withClaims({ scope: "completions", scopes: ["keys"] })))
      assert.deepStrictEqual(principal.scopes, new Set<Principal.Scope>(["completions", "keys"]))
    }))

  it.effect("gives a token without scope claims no scopes", () =>
    Effect.gen(function*() {
      const principal = yield* principalOf(sign(withClaims({ scope: undefined })))
      assert.strictEqual(principal.scopes.size, 0)
    }))

  it.effect("rejects a scopes claim that is not an array of strings", () =>
    expectRejection(
      sign(withClaims({ scopes: ["completions", 1] })),
      "x-gateway-api-key: JWT scopes claim is not an array of strings"
    ))

  it.effect("tries every key of the set when the token names no kid", () =>
    Effect.gen(function*() {
      yield* atNow
      const unnamed = (key: SigningKey): JWK => {
        const { kid: _kid, ...jwk } = key.jwk
        return jwk
      }
      const path = yield* Effect.promise(() =>
        fileWith("no-kids.json", JSON.stringify({ keys: [unnamed(keyB), unnamed(keyA)] }))
      )
      const token = yield* Effect.promise(() =>
        new SignJWT(CLAIMS).setProtectedHeader({ alg: "RS256" }).sign(keyA.privateKey)
      )
      const principal = yield* verify(token).pipe(Effect.provide(JwtVerifier.layer({ jwksFile: path })))
      assert.strictEqual(principal.keyId, "jwt:user-1")
      const foreign = yield* Effect.promise(() =>
        new SignJWT(CLAIMS).setProtectedHeader({ alg: "RS256" }).sign(keyC.privateKey)
      )
      const message = yield* rejection(foreign).pipe(Effect.provide(JwtVerifier.layer({ jwksFile: path })))
      assert.strictEqual(message, "x-gateway-api-key: JWT signature invalid")
    }))
})

describe("JwtVerifier layers", () => {
  const buildError = (options: JwtVerifier.Options) => Effect.flip(Layer.build(JwtVerifier.layer(options)))

  it.effect("fails to build with a clear error when the JWKS file is not JSON", () =>
    Effect.gen(function*() {
      const path = yield* Effect.promise(() => fileWith("broken.json", "{ keys: [ "))
      const error = yield* buildError({ jwksFile: path })
      assert.strictEqual(error._tag, "JwtConfigError")
      assert.include(error.message, `GATEWAY_JWKS_FILE ${path} is not a JSON Web Key Set`)
    }))

  it.effect("fails to build when the JWKS file holds a private key", () =>
    Effect.gen(function*() {
      const { privateKey } = yield* Effect.promise(() => generateKeyPair("RS256", { extractable: true }))
      const jwk = yield* Effect.promise(() => exportJWK(privateKey))
      const path = yield* Effect.promise(() => fileWith("private.json", JSON.stringify({ keys: [jwk] })))
      const error = yield* buildError({ jwksFile: path })
      assert.include(error.message, "public RSA, EC or OKP keys")
      assert.include(error.message, "\"d\"")
    }))

  it.effect("fails to build when the JWKS file holds a symmetric key or no key at all", () =>
    Effect.gen(function*() {
      const oct = yield* Effect.promise(() =>
        fileWith("oct.json", JSON.stringify({ keys: [{ kty: "oct", k: "c2VjcmV0" }] }))
      )
      assert.strictEqual((yield* buildError({ jwksFile: oct }))._tag, "JwtConfigError")
      const empty = yield* Effect.promise(() => fileWith("empty.json", JSON.stringify({ keys: [] })))
      assert.strictEqual((yield* buildError({ jwksFile: empty }))._tag, "JwtConfigError")
    }))

  it.effect("fails to build when the JWKS file is missing", () =>
    Effect.gen(function*() {
      const error = yield* buildError({ jwksFile: join(dir, "missing.json") })
      assert.include(error.message, "cannot be read")
    }))

  it.effect("fails to build when both a JWKS URL and a JWKS file are given", () =>
    Effect.gen(function*() {
      const error = yield* buildError({ jwksUrl: "https://idp.test/jwks.json", jwksFile })
      assert.strictEqual(error.message, "set GATEWAY_JWKS_URL or GATEWAY_JWKS_FILE, not both")
    }))

  it.effect("refuses every JWT with 401 when neither a URL nor a file is configured", () =>
    Effect.gen(function*() {
      yield* atNow
      const message = yield* rejection(yield* sign()).pipe(Effect.provide(JwtVerifier.layer({ jwksUrl: " " })))
      assert.strictEqual(message, "x-gateway-api-key: JWT authentication is not configured")
    }))

  it.effect("layerConfig reads the JWKS file, issuer and audience from the environment", () =>
    Effect.gen(function*() {
      yield* atNow
      const env = ConfigProvider.fromEnv({
        env: { GATEWAY_JWKS_FILE: jwksFile, GATEWAY_JWT_ISSUER: "https://idp.test", GATEWAY_JWT_AUDIENCE: "other" }
      })
      const message = yield* rejection(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layerConfig.pipe(Layer.provide(ConfigProvider.layer(env))))
      )
      assert.strictEqual(message, "x-gateway-api-key: JWT audience not accepted")
    }))

  it.effect("layerConfig reads the JWKS URL from the environment", () =>
    Effect.gen(function*() {
      yield* atNow
      const idp = yield* jwksServer(jwks(keyA))
      const env = ConfigProvider.fromEnv({ env: { GATEWAY_JWKS_URL: idp.url } })
      const principal = yield* verify(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layerConfig.pipe(Layer.provide(ConfigProvider.layer(env))))
      )
      assert.strictEqual(principal.workspaceId, "ws-1")
      assert.strictEqual(idp.fetches(), 1)
    }))

  it.effect("layerConfig without JWKS settings refuses every JWT with 401", () =>
    Effect.gen(function*() {
      yield* atNow
      const env = ConfigProvider.fromEnv({ env: {} })
      const message = yield* rejection(yield* sign()).pipe(
        Effect.provide(JwtVerifier.layerConfig.pipe(Layer.provide(ConfigProvider.layer(env))))
      )
      assert.strictEqual(message, "x-gateway-api-key: JWT authentication is not configured")
    }))
})
