import { assert, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import type { GatewayConfig } from "@switchyard/protocol"
import { StoredConfigs } from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Clock, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { API_KEY, column, DEFAULT_WORKSPACE, deleteRow, OTHER_WORKSPACE, repositoriesOn } from "./support/Fixtures.ts"

// Valid configs: the repository stores what the route validated, and reads it back through the same schema.
const fallback: GatewayConfig.GatewayConfig = {
  strategy: { mode: "fallback" },
  targets: [
    { virtual_key: "vk-primary" },
    { provider: "ollama", custom_host: "http://127.0.0.1:11434", override_params: { model: "llama3" } }
  ]
}
const single: GatewayConfig.GatewayConfig = { virtual_key: "vk-legacy", retry: { attempts: 2 } }

const configs = <A, E>(use: (service: StoredConfigs.StoredConfigs["Service"]) => Effect.Effect<A, E>) =>
  StoredConfigs.StoredConfigs.use(use)

const create = (name = "routing", workspaceId = DEFAULT_WORKSPACE, config = fallback) =>
  configs((service) => service.create(workspaceId, { name, config }))

const get = (id: string, workspaceId = DEFAULT_WORKSPACE) => configs((service) => service.get(workspaceId, id))
const list = (workspaceId = DEFAULT_WORKSPACE) => configs((service) => service.list(workspaceId))
const resolve = (id: string, workspaceId = DEFAULT_WORKSPACE) => configs((service) => service.resolve(workspaceId, id))
const remove = (id: string, workspaceId = DEFAULT_WORKSPACE) => configs((service) => service.remove(workspaceId, id))

const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

for (const { name, layer: database } of TestDatabase.dialects) {
  layer(repositoriesOn(database))(`StoredConfigs on ${name}`, (it) => {
    it.effect("create answers a pc- id, version 1 and the config as given", () =>
      Effect.gen(function*() {
        const created = yield* create("created")
        assert.match(created.id, /^pc-[0-9a-f]{18}$/)
        assert.strictEqual(created.object, "config")
        assert.strictEqual(created.name, "created")
        assert.strictEqual(created.workspace_id, DEFAULT_WORKSPACE)
        assert.strictEqual(created.version, 1)
        assert.strictEqual(created.created_at, yield* nowSeconds)
        assert.deepStrictEqual(created.config, fallback)
      }))

    it.effect("get answers the stored config, read back from storage", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.deepStrictEqual(yield* get(created.id), {
          id: created.id,
          object: "config",
          name: "routing",
          workspace_id: DEFAULT_WORKSPACE,
          config: fallback,
          version: 1,
          created_at: created.created_at,
          updated_at: created.created_at
        })
      }))

    it.effect("create answers exactly what get answers", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.deepStrictEqual(created, yield* get(created.id))
      }))

    it.effect("get of an unknown id is NotFound (404)", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(get("pc-000000000000000000"))
        assert.instanceOf(error, GatewayError.NotFound)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
      }))

    it.effect("list shows the workspace's configs, newest first", () =>
      Effect.gen(function*() {
        const older = yield* create("older", "ws-configs-list")
        yield* TestClock.adjust("1 second")
        const newer = yield* create("newer", "ws-configs-list", single)
        const listed = yield* list("ws-configs-list")
        assert.deepStrictEqual(listed.map((config) => config.id), [newer.id, older.id])
        assert.deepStrictEqual(listed, [
          yield* get(newer.id, "ws-configs-list"),
          yield* get(older.id, "ws-configs-list")
        ])
      }))

    it.effect("update replaces the config and bumps the version on every save", () =>
      Effect.gen(function*() {
        const created = yield* create("versioned")
        yield* TestClock.adjust("1 minute")
        const second = yield* configs((service) => service.update(DEFAULT_WORKSPACE, created.id, { config: single }))
        assert.strictEqual(second.version, 2)
        assert.strictEqual(second.name, "versioned")
        assert.deepStrictEqual(second.config, single)
        assert.strictEqual(second.created_at, created.created_at)
        assert.strictEqual(second.updated_at, created.updated_at + 60)
        const third = yield* configs((service) => service.update(DEFAULT_WORKSPACE, created.id, { name: "renamed" }))
        assert.strictEqual(third.version, 3)
        assert.strictEqual(third.name, "renamed")
        assert.deepStrictEqual(third.config, single)
        assert.deepStrictEqual(yield* get(created.id), third)
      }))

    it.effect("resolve sees an update at once, with its new version", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.strictEqual(Option.getOrThrow(yield* resolve(created.id)).version, 1)
        yield* configs((service) => service.update(DEFAULT_WORKSPACE, created.id, { config: single }))
        const resolved = Option.getOrThrow(yield* resolve(created.id))
        assert.strictEqual(resolved.version, 2)
        assert.deepStrictEqual(resolved.config, single)
      }))

    it.effect("remove ends the config: not found, not listed, not resolved, not updatable", () =>
      Effect.gen(function*() {
        const created = yield* create("removed")
        assert.isTrue(Option.isSome(yield* resolve(created.id)))
        const before = yield* get(created.id)
        assert.deepStrictEqual(yield* remove(created.id), before)
        assert.strictEqual((yield* Effect.flip(get(created.id)))._tag, "NotFound")
        assert.isFalse((yield* list()).some((config) => config.id === created.id))
        assert.isTrue(Option.isNone(yield* resolve(created.id)))
        assert.strictEqual((yield* Effect.flip(remove(created.id)))._tag, "NotFound")
        const update = configs((service) => service.update(DEFAULT_WORKSPACE, created.id, { name: "back" }))
        assert.strictEqual((yield* Effect.flip(update))._tag, "NotFound")
      }))

    it.effect("another workspace's config is NotFound, not listed, not resolved, left unchanged", () =>
      Effect.gen(function*() {
        const theirs = yield* create("theirs", OTHER_WORKSPACE)
        assert.strictEqual((yield* Effect.flip(get(theirs.id)))._tag, "NotFound")
        const update = configs((service) => service.update(DEFAULT_WORKSPACE, theirs.id, { config: single }))
        assert.strictEqual((yield* Effect.flip(update))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(remove(theirs.id)))._tag, "NotFound")
        assert.isFalse((yield* list()).some((config) => config.id === theirs.id))
        assert.isTrue(Option.isNone(yield* resolve(theirs.id)))
        const unchanged = yield* get(theirs.id, OTHER_WORKSPACE)
        assert.strictEqual(unchanged.version, 1)
        assert.deepStrictEqual(unchanged.config, fallback)
      }))

    it.effect("resolve answers from its cache for two seconds, then reads storage again", () =>
      Effect.gen(function*() {
        const created = yield* create()
        assert.isTrue(Option.isSome(yield* resolve(created.id)))
        yield* deleteRow("configs", created.id)
        yield* TestClock.adjust("1999 millis")
        assert.isTrue(Option.isSome(yield* resolve(created.id)))
        yield* TestClock.adjust("1 milli")
        assert.isTrue(Option.isNone(yield* resolve(created.id)))
      }))

    it.effect("a config may be created in a workspace that has no row yet", () =>
      Effect.gen(function*() {
        const created = yield* create("first", `ws-new-${name}`)
        assert.isTrue(Option.isSome(yield* resolve(created.id, `ws-new-${name}`)))
      }))

    it.effect("the config column holds the config sealed, not as readable JSON", () =>
      Effect.gen(function*() {
        const withKey: GatewayConfig.GatewayConfig = { provider: "openai", api_key: API_KEY }
        const created = yield* create("sealed", DEFAULT_WORKSPACE, withKey)
        const stored = String(yield* column("configs", "config", created.id))
        assert.match(stored, /^v1\./)
        assert.notInclude(stored, API_KEY)
      }))

    it.effect("a config's api_key is never answered in full", () =>
      Effect.gen(function*() {
        const withKey: GatewayConfig.GatewayConfig = { provider: "openai", api_key: API_KEY }
        const created = yield* create("inline key", DEFAULT_WORKSPACE, withKey)
        assert.notInclude(JSON.stringify(yield* get(created.id)), API_KEY)
        assert.notInclude(JSON.stringify(yield* list()), API_KEY)
        assert.notInclude(JSON.stringify(created), API_KEY)
      }))
  })
}
