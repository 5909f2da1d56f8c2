import { assert, describe, it } from "@effect/vitest"
import { Authenticator } from "@switchyard/auth"
import { GatewayError } from "@switchyard/core"
import { Effect, Redacted } from "effect"
import { createHash } from "node:crypto"

const ADMIN_KEY = "sy-admin-test-key"
const authenticator = Authenticator.fromAdminKeyHash(createHash("sha256").update(ADMIN_KEY).digest())

const rejection = (credential: string | undefined) => Effect.flip(authenticator.authenticate(credential))

describe("Authenticator.hashKey", () => {
  it("is the SHA-256 digest of the key", () => {
    assert.strictEqual(
      Authenticator.hashKey("abc").toString("hex"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
  })
})

describe("Authenticator.fromAdminKeyHash", () => {
  it.effect("rejects a missing credential with 401 saying it is missing", () =>
    Effect.gen(function*() {
      const error = yield* rejection(undefined)
      assert.instanceOf(error, GatewayError.Unauthorized)
      assert.strictEqual(error.message, "x-gateway-api-key: missing")
      assert.strictEqual(GatewayError.toHttp(error).status, 401)
    }))

  it.effect("rejects an empty credential as missing", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* rejection("")).message, "x-gateway-api-key: missing")
    }))

  it.effect("rejects a wrong key with 401", () =>
    Effect.gen(function*() {
      const error = yield* rejection(`${ADMIN_KEY}x`)
      assert.instanceOf(error, GatewayError.Unauthorized)
      assert.strictEqual(error.message, "x-gateway-api-key: not a valid key")
      assert.strictEqual(GatewayError.toHttp(error).status, 401)
    }))

  it.effect("accepts the admin key as the admin principal of the default workspace", () =>
    Effect.gen(function*() {
      const principal = yield* authenticator.authenticate(ADMIN_KEY)
      assert.strictEqual(principal.keyId, "admin")
      assert.strictEqual(principal.workspaceId, Authenticator.DEFAULT_WORKSPACE_ID)
      assert.deepStrictEqual([...principal.scopes], ["admin"])
    }))
})

describe("Authenticator.layerAdminKey", () => {
  it.effect("accepts exactly the key it was given", () =>
    Effect.gen(function*() {
      const auth = yield* Authenticator.Authenticator
      assert.strictEqual((yield* auth.authenticate(ADMIN_KEY)).keyId, "admin")
      assert.strictEqual((yield* Effect.flip(auth.authenticate("other"))).message, "x-gateway-api-key: not a valid key")
    }).pipe(Effect.provide(Authenticator.layerAdminKey(Redacted.make(ADMIN_KEY)))))
})
