import { assert, layer } from "@effect/vitest"
import { ApiKeys, ServerSecret } from "@switchyard/auth"
import { GatewayError } from "@switchyard/core"
import { Migrations } from "@switchyard/storage"
import { TestDatabase } from "@switchyard/storage/testing"
import { Clock, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"

const DEFAULT_WORKSPACE = Migrations.DEFAULT_WORKSPACE_ID
const OTHER_WORKSPACE = "ws-other"
const secret = ServerSecret.ServerSecret.layerSecret("api-keys test secret")

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

const create = (input: Partial<ApiKeys.CreateApiKey> = {}) =>
  ApiKeys.ApiKeys.use((apiKeys) =>
    apiKeys.create({ name: "ci", scopes: ["completions"], workspace_id: DEFAULT_WORKSPACE, ...input })
  )

const verify = (key: string) => ApiKeys.ApiKeys.use((apiKeys) => apiKeys.verify(key))

const storedHash = (id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly key_hash: string }>`SELECT key_hash FROM api_keys WHERE id = ${id}`
    return rows[0]?.key_hash ?? ""
  })

/** The same table seen through ApiKeys built with another server secret (another gateway, or a lost secret). */
const underSecret = <A, E>(
  material: string,
  use: (apiKeys: ApiKeys.ApiKeys["Service"]) => Effect.Effect<A, E>
) =>
  ApiKeys.ApiKeys.use(use).pipe(
    Effect.provide(
      Layer.fresh(ApiKeys.ApiKeys.layer).pipe(Layer.provide(ServerSecret.ServerSecret.layerSecret(material)))
    )
  )

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(ApiKeys.ApiKeys.layer.pipe(Layer.provideMerge(Layer.merge(database, secret))))(`ApiKeys on ${name}`, (it) => {
    it.effect("create answers the secret once, with the key's id, name, workspace and scopes", () =>
      Effect.gen(function*() {
        const created = yield* create({ name: "deploy bot", scopes: ["completions", "keys"] })
        assert.match(created.key, /^sy-[A-Za-z0-9_-]{43}$/)
        assert.match(created.id, /^key_[0-9a-f]{24}$/)
        assert.strictEqual(created.object, "api_key")
        assert.strictEqual(created.name, "deploy bot")
        assert.strictEqual(created.workspace_id, DEFAULT_WORKSPACE)
        assert.deepStrictEqual(created.scopes, ["completions", "keys"])
        assert.strictEqual(created.key_prefix, created.key.slice(0, 10))
        assert.strictEqual(created.revoked_at, null)
        assert.strictEqual(created.expires_at, null)
      }))

    it.effect("create drops repeated scopes", () =>
      Effect.gen(function*() {
        const created = yield* create({ scopes: ["completions", "completions", "logs.read"] })
        assert.deepStrictEqual(created.scopes, ["completions", "logs.read"])
      }))

    it.effect("two keys never share a secret", () =>
      Effect.gen(function*() {
        const [first, second] = [yield* create(), yield* create()]
        assert.notStrictEqual(first.key, second.key)
        assert.notStrictEqual(first.id, second.id)
      }))

    it.effect("list shows the workspace's keys without their secret or its hash", () =>
      Effect.gen(function*() {
        const created = yield* create({ name: "listed" })
        const listed = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.list(DEFAULT_WORKSPACE))
        const found = listed.find((key) => key.id === created.id)
        assert.isDefined(found)
        assert.notProperty(found, "key")
        assert.notProperty(found, "key_hash")
        const text = JSON.stringify(listed)
        assert.notInclude(text, created.key)
        assert.notInclude(text, yield* storedHash(created.id))
        const { key: _secret, ...withoutSecret } = created
        assert.deepStrictEqual(found, withoutSecret)
      }))

    it.effect("list does not show another workspace's keys", () =>
      Effect.gen(function*() {
        const mine = yield* create({ workspace_id: OTHER_WORKSPACE })
        const listed = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.list(DEFAULT_WORKSPACE))
        assert.isFalse(listed.some((key) => key.id === mine.id))
        const theirs = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.list(OTHER_WORKSPACE))
        assert.deepStrictEqual(theirs.map((key) => key.id), [mine.id])
      }))

    it.effect("get answers one key of the workspace, revoked or not, and no other workspace's", () =>
      Effect.gen(function*() {
        const created = yield* create({ scopes: ["keys", "configs"] })
        const { key: _secret, ...withoutSecret } = created
        const got = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.get(DEFAULT_WORKSPACE, created.id))
        assert.deepStrictEqual(got, withoutSecret)
        yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, created.id))
        const revoked = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.get(DEFAULT_WORKSPACE, created.id))
        assert.strictEqual(revoked.revoked_at, yield* nowSeconds)
        const elsewhere = yield* Effect.flip(
          ApiKeys.ApiKeys.use((apiKeys) => apiKeys.get(OTHER_WORKSPACE, created.id))
        )
        assert.instanceOf(elsewhere, GatewayError.NotFound)
      }))

    it.effect("stores a keyed hash: not the secret, not its plain SHA-256", () =>
      Effect.gen(function*() {
        const created = yield* create()
        const hash = yield* storedHash(created.id)
        assert.match(hash, /^[0-9a-f]{64}$/)
        assert.notInclude(hash, created.key)
        assert.notStrictEqual(hash, createHash("sha256").update(created.key).digest("hex"))
      }))

    it.effect("a key does not verify under another server secret, so the hash is keyed", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        assert.isTrue(Option.isNone(yield* underSecret("another secret", (other) => other.verify(created.key))))
        assert.isTrue(
          Option.isSome(yield* underSecret("api-keys test secret", (same) => same.verify(created.key)))
        )
      }))

    it.effect("verify turns a live key into its principal: id, workspace and scopes", () =>
      Effect.gen(function*() {
        const created = yield* create({ scopes: ["prompts.read", "configs"], workspace_id: OTHER_WORKSPACE })
        const principal = yield* verify(created.key)
        assert.isTrue(Option.isSome(principal))
        const { keyId, workspaceId, scopes } = Option.getOrThrow(principal)
        assert.strictEqual(keyId, created.id)
        assert.strictEqual(workspaceId, OTHER_WORKSPACE)
        assert.deepStrictEqual([...scopes].sort(), ["configs", "prompts.read"])
      }))

    it.effect("verify knows no unknown key", () =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* verify("sy-no-such-key")))
        assert.isTrue(Option.isNone(yield* verify("")))
      }))

    it.effect("a revoked key stops verifying at once, although it was just verified", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        const revoked = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, created.id))
        assert.strictEqual(revoked.id, created.id)
        assert.strictEqual(revoked.revoked_at, yield* nowSeconds)
        assert.isTrue(Option.isNone(yield* verify(created.key)))
      }))

    it.effect("revoking twice keeps the first revocation time", () =>
      Effect.gen(function*() {
        const created = yield* create()
        const first = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, created.id))
        yield* TestClock.adjust("1 minute")
        const second = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, created.id))
        assert.strictEqual(second.revoked_at, first.revoked_at)
      }))

    it.effect("another replica's revocation is seen within five seconds", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        yield* underSecret("api-keys test secret", (replica) => replica.revoke(DEFAULT_WORKSPACE, created.id))
        yield* TestClock.adjust("5 seconds")
        assert.isTrue(Option.isNone(yield* verify(created.key)))
      }))

    it.effect("a key stops verifying when the clock passes expires_at", () =>
      Effect.gen(function*() {
        const created = yield* create({ expires_at: (yield* nowSeconds) + 60 })
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        yield* TestClock.adjust("59 seconds")
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        yield* TestClock.adjust("1 second")
        assert.isTrue(Option.isNone(yield* verify(created.key)))
      }))

    it.effect("a key created already expired never verifies", () =>
      Effect.gen(function*() {
        yield* TestClock.adjust("1 hour")
        const created = yield* create({ expires_at: (yield* nowSeconds) - 1 })
        assert.isTrue(Option.isNone(yield* verify(created.key)))
      }))

    it.effect("revoking from another workspace is NotFound and the key keeps working", () =>
      Effect.gen(function*() {
        const created = yield* create()
        const error = yield* Effect.flip(
          ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(OTHER_WORKSPACE, created.id))
        )
        assert.instanceOf(error, GatewayError.NotFound)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
        assert.isTrue(Option.isSome(yield* verify(created.key)))
        const listed = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.list(DEFAULT_WORKSPACE))
        assert.strictEqual(listed.find((key) => key.id === created.id)?.revoked_at, null)
      }))

    it.effect("revoking an unknown id is NotFound", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, "key_missing"))
        )
        assert.strictEqual(error._tag, "NotFound")
      }))

    it.effect("count counts every key, revoked ones and other workspaces' included", () =>
      Effect.gen(function*() {
        const before = yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.count)
        const revoked = yield* create()
        yield* create({ workspace_id: OTHER_WORKSPACE })
        yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.revoke(DEFAULT_WORKSPACE, revoked.id))
        assert.strictEqual(yield* ApiKeys.ApiKeys.use((apiKeys) => apiKeys.count), before + 2)
      }))

    it.effect("a key may be created in a workspace that has no row yet", () =>
      Effect.gen(function*() {
        const created = yield* create({ workspace_id: `ws-new-${name}` })
        assert.strictEqual(Option.getOrThrow(yield* verify(created.key)).workspaceId, `ws-new-${name}`)
      }))
  })
}
