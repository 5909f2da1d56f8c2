import { assert, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { VirtualKeys } from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import {
  API_KEY,
  assertNoSecretIn,
  CLOUD_SECRET,
  cloudCredentials,
  column,
  DEFAULT_WORKSPACE,
  deleteRow,
  OTHER_WORKSPACE,
  PRIVATE_KEY,
  repositoriesOn,
  SERVICE_ACCOUNT
} from "./support/Fixtures.ts"

const virtualKeys = <A, E>(use: (service: VirtualKeys.VirtualKeys["Service"]) => Effect.Effect<A, E>) =>
  VirtualKeys.VirtualKeys.use(use)

const create = (name = "prod", workspaceId = DEFAULT_WORKSPACE) =>
  virtualKeys((service) => service.create(workspaceId, { name, provider: "anthropic", ...cloudCredentials }))

const resolve = (token: string, workspaceId = DEFAULT_WORKSPACE) =>
  virtualKeys((service) => service.resolve(workspaceId, token))

const remove = (id: string, workspaceId = DEFAULT_WORKSPACE) =>
  virtualKeys((service) => service.remove(workspaceId, id))

const list = (workspaceId = DEFAULT_WORKSPACE) => virtualKeys((service) => service.list(workspaceId))

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(repositoriesOn(database))(`VirtualKeys on ${name}`, (it) => {
    it.effect("create answers the token once, with the key's name, provider and workspace", () =>
      Effect.gen(function*() {
        const created = yield* create("answered")
        assert.match(created.key, /^vk-[A-Za-z0-9_-]{32}$/)
        assert.match(created.id, /^vk_[0-9a-f]{24}$/)
        assert.strictEqual(created.object, "virtual_key")
        assert.strictEqual(created.name, "answered")
        assert.strictEqual(created.provider, "anthropic")
        assert.strictEqual(created.workspace_id, DEFAULT_WORKSPACE)
        assert.strictEqual(created.key_prefix, created.key.slice(0, 9))
      }))

    it.effect("settings show the non-secret fields and a masked hint of each secret", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.strictEqual(created.settings.api_key, "****abcd")
        assert.strictEqual(created.settings.cloud1_secret_access_key, "****wxyz")
        assert.strictEqual(created.settings.cloud2_service_account_json, "****")
        assert.strictEqual(created.settings.cloud1_region, "eu-west-1")
        assert.strictEqual(created.settings.custom_host, "https://llm.internal.example/v1")
      }))

    it.effect("list shows the workspace's keys without their token", () =>
      Effect.gen(function*() {
        const created = yield* create("listed", "ws-vk-list")
        const listed = yield* list("ws-vk-list")
        const { key, ...withoutToken } = created
        assert.deepStrictEqual(listed, [withoutToken])
        assert.notInclude(JSON.stringify(listed), key)
      }))

    it.effect("no secret is in what create, list or remove answer", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assertNoSecretIn(created)
        assertNoSecretIn(yield* list())
        assertNoSecretIn(yield* remove(created.id))
      }))

    it.effect("the table holds sealed credentials and a keyed hash, never the secrets or the token", () =>
      Effect.gen(function*() {
        const created = yield* create()
        const credentials = String(yield* column("virtual_keys", "credentials", created.id))
        assert.match(credentials, /^v1\./)
        for (const secret of [API_KEY, CLOUD_SECRET, PRIVATE_KEY]) assert.notInclude(credentials, secret)
        const hash = String(yield* column("virtual_keys", "key_hash", created.id))
        assert.match(hash, /^[0-9a-f]{64}$/)
        assert.notInclude(hash, created.key)
        assertNoSecretIn(yield* column("virtual_keys", "settings", created.id))
      }))

    it.effect("resolve turns the token into the opened credentials", () =>
      Effect.gen(function*() {
        const created = yield* create()
        const resolved = Option.getOrThrow(yield* resolve(created.key))
        assert.strictEqual(resolved.id, created.id)
        assert.strictEqual(resolved.provider, "anthropic")
        assert.strictEqual(resolved.version, created.created_at)
        assert.deepStrictEqual(resolved.credentials, {
          ...cloudCredentials,
          cloud2_service_account_json: SERVICE_ACCOUNT
        })
      }))

    it.effect("resolve knows no unknown token, and no key id in place of its token", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isNone(yield* resolve("vk-no-such-token")))
        assert.isTrue(Option.isNone(yield* resolve(created.id)))
        assert.isTrue(Option.isNone(yield* resolve(created.key_prefix)))
      }))

    it.effect("remove ends the key: not listed, not resolved, a second remove is NotFound", () =>
      Effect.gen(function*() {
        const created = yield* create("removed")
        assert.isTrue(Option.isSome(yield* resolve(created.key)))
        const removed = yield* remove(created.id)
        assert.strictEqual(removed.id, created.id)
        assert.isFalse((yield* list()).some((key) => key.id === created.id))
        assert.isTrue(Option.isNone(yield* resolve(created.key)))
        const error = yield* Effect.flip(remove(created.id))
        assert.instanceOf(error, GatewayError.NotFound)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
      }))

    it.effect("another workspace's key is not listed, not resolved, and cannot be removed", () =>
      Effect.gen(function*() {
        const theirs = yield* create("theirs", OTHER_WORKSPACE)
        assert.isFalse((yield* list()).some((key) => key.id === theirs.id))
        assert.isTrue(Option.isNone(yield* resolve(theirs.key)))
        assert.strictEqual((yield* Effect.flip(remove(theirs.id)))._tag, "NotFound")
        assert.isTrue(Option.isSome(yield* resolve(theirs.key, OTHER_WORKSPACE)))
      }))

    it.effect("resolve answers from its cache for two seconds, then reads storage again", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isSome(yield* resolve(created.key)))
        yield* deleteRow("virtual_keys", created.id)
        yield* TestClock.adjust("1999 millis")
        assert.isTrue(Option.isSome(yield* resolve(created.key)))
        yield* TestClock.adjust("1 milli")
        assert.isTrue(Option.isNone(yield* resolve(created.key)))
      }))

    it.effect("a virtual key may be created in a workspace that has no row yet", () =>
      Effect.gen(function*() {
        const created = yield* create("first", `ws-new-${name}`)
        assert.isTrue(Option.isSome(yield* resolve(created.key, `ws-new-${name}`)))
      }))
  })
}
