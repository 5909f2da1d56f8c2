import { assert, describe, it, layer } from "@effect/vitest"
import { ApiKeys, Authenticator, JwtVerifier, ServerSecret } from "@switchyard/auth"
import { GatewayError, type Principal } from "@switchyard/core"
import { Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Option, Redacted } from "effect"

const ADMIN_KEY = "admin-key-from-GATEWAY_ADMIN_KEY"
const DEFAULT_WORKSPACE = Migrations.DEFAULT_WORKSPACE_ID

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
/** Shaped like a JWT (three base64url segments, a JSON header with alg); its signature is not checked here. */
const jwtShaped = (sub: string) => `${base64url({ alg: "RS256", typ: "JWT" })}.${base64url({ sub })}.c2lnbmF0dXJl`
const ACCEPTED_JWT = jwtShaped("user-1")
const REJECTED_JWT = jwtShaped("user-2")

const jwtPrincipal: Principal.Principal = { keyId: "jwt:user-1", workspaceId: "ws-jwt", scopes: new Set(["files"]) }

/** A JwtVerifier that accepts ACCEPTED_JWT only, and records every token it is asked about. */
const jwtCalls: Array<string> = []
const fakeJwtVerifier = Layer.succeed(
  JwtVerifier.JwtVerifier,
  JwtVerifier.JwtVerifier.of({
    verify: (token) =>
      Effect.suspend(() => {
        jwtCalls.push(token)
        return token === ACCEPTED_JWT
          ? Effect.succeed(jwtPrincipal)
          : Effect.fail(new GatewayError.Unauthorized({ message: "x-gateway-api-key: JWT signature invalid" }))
      })
  })
)

const authenticate = (credential: string | undefined) =>
  Authenticator.Authenticator.use((authenticator) => authenticator.authenticate(credential))

const rejection = (credential: string | undefined) =>
  Effect.map(Effect.flip(authenticate(credential)), (error) => {
    assert.strictEqual(GatewayError.toHttp(error).status, 401)
    return error.message
  })

const jwtCallsDuring = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = jwtCalls.length
    yield* effect
    return jwtCalls.slice(before)
  })

const storedKeys = ApiKeys.ApiKeys.layer.pipe(
  Layer.provideMerge(Layer.merge(TestDatabase.layerSqlite, ServerSecret.ServerSecret.layerSecret("authenticator test")))
)

const withAdminKey = Authenticator.Authenticator.layer({ adminKey: Option.some(Redacted.make(ADMIN_KEY)) }).pipe(
  Layer.provideMerge(Layer.merge(storedKeys, fakeJwtVerifier))
)

layer(withAdminKey)("Authenticator with an admin key, stored keys and JWTs", (it) => {
  it.effect("a missing or empty credential is a 401 that says it is missing", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* rejection(undefined), "x-gateway-api-key: missing")
      assert.strictEqual(yield* rejection(""), "x-gateway-api-key: missing")
    }))

  it.effect("the admin key is the admin principal of the default workspace", () =>
    Effect.gen(function*() {
      const principal = yield* authenticate(ADMIN_KEY)
      assert.strictEqual(principal.keyId, "admin")
      assert.strictEqual(principal.workspaceId, DEFAULT_WORKSPACE)
      assert.deepStrictEqual([...principal.scopes], ["admin"])
    }))

  it.effect("a stored API key is accepted with its own id, workspace and scopes", () =>
    Effect.gen(function*() {
      const created = yield* ApiKeys.ApiKeys.use((apiKeys) =>
        apiKeys.create({ name: "ci", scopes: ["completions", "logs.read"], workspace_id: "ws-team" })
      )
      const principal = yield* authenticate(created.key)
      assert.strictEqual(principal.keyId, created.id)
      assert.strictEqual(principal.workspaceId, "ws-team")
      assert.deepStrictEqual([...principal.scopes].sort(), ["completions", "logs.read"])
    }))

  it.effect("a revoked stored key is a 401", () =>
    Effect.gen(function*() {
      const created = yield* ApiKeys.ApiKeys.use((apiKeys) =>
        apiKeys.create({ name: "old", scopes: ["completions"], workspace_id: DEFAULT_WORKSPACE })
      )
      yield* authenticate(created.key)
      yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, created.id))
      assert.strictEqual(yield* rejection(created.key), "x-gateway-api-key: not a valid key")
    }))

  it.effect("a wrong key is a 401 that does not echo the key", () =>
    Effect.gen(function*() {
      for (const wrong of ["sy-not-a-key", `${ADMIN_KEY}x`, ADMIN_KEY.slice(0, -1), " "]) {
        const message = yield* rejection(wrong)
        assert.strictEqual(message, "x-gateway-api-key: not a valid key")
      }
    }))

  it.effect("a JWT-shaped credential goes to the JWT verifier, whose principal is the caller", () =>
    Effect.gen(function*() {
      let principal: Principal.Principal | undefined
      const calls = yield* jwtCallsDuring(Effect.map(authenticate(ACCEPTED_JWT), (found) => (principal = found)))
      assert.deepStrictEqual(calls, [ACCEPTED_JWT])
      assert.strictEqual(principal, jwtPrincipal)
    }))

  it.effect("a JWT the verifier refuses is its 401, not a stored-key lookup", () =>
    Effect.gen(function*() {
      const calls = yield* jwtCallsDuring(
        Effect.map(rejection(REJECTED_JWT), (message) =>
          assert.strictEqual(message, "x-gateway-api-key: JWT signature invalid"))
      )
      assert.deepStrictEqual(calls, [REJECTED_JWT])
    }))

  it.effect("admin keys and stored keys never reach the JWT verifier", () =>
    Effect.gen(function*() {
      const created = yield* ApiKeys.ApiKeys.use((apiKeys) =>
        apiKeys.create({ name: "ci", scopes: ["completions"], workspace_id: DEFAULT_WORKSPACE })
      )
      const calls = yield* jwtCallsDuring(
        Effect.all([authenticate(ADMIN_KEY), authenticate(created.key), Effect.flip(authenticate("a.b.c"))])
      )
      assert.deepStrictEqual(calls, [])
    }))
})

layer(
  Authenticator.Authenticator.layer({ adminKey: Option.none() }).pipe(
    Layer.provideMerge(Layer.merge(storedKeys, fakeJwtVerifier))
  )
)("Authenticator without an admin key", (it) => {
  it.effect("only stored keys and JWTs are accepted", () =>
    Effect.gen(function*() {
      const created = yield* ApiKeys.ApiKeys.use((apiKeys) =>
        apiKeys.create({ name: "ci", scopes: ["completions"], workspace_id: DEFAULT_WORKSPACE })
      )
      assert.strictEqual((yield* authenticate(created.key)).keyId, created.id)
      assert.strictEqual((yield* authenticate(ACCEPTED_JWT)).keyId, "jwt:user-1")
      assert.strictEqual(yield* rejection(ADMIN_KEY), "x-gateway-api-key: not a valid key")
    }))
})

describe("Authenticator.layerAdminKey", () => {
  const adminOnly = <A, E>(effect: Effect.Effect<A, E, Authenticator.Authenticator>) =>
    Effect.provide(effect, Authenticator.Authenticator.layerAdminKey(Redacted.make(ADMIN_KEY)))

  it.effect("accepts the admin key without storage or a JWT verifier", () =>
    adminOnly(Effect.gen(function*() {
      const principal = yield* authenticate(ADMIN_KEY)
      assert.strictEqual(principal, Authenticator.adminPrincipal)
    })))

  it.effect("refuses anything else, JWTs included, with a 401", () =>
    adminOnly(Effect.gen(function*() {
      assert.strictEqual(yield* rejection(undefined), "x-gateway-api-key: missing")
      assert.strictEqual(yield* rejection("sy-some-stored-key"), "x-gateway-api-key: not a valid key")
      const calls = yield* jwtCallsDuring(rejection(ACCEPTED_JWT))
      assert.deepStrictEqual(calls, [])
    })))
})
