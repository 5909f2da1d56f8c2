import { assert, it, layer } from "@effect/vitest"
import { ConfigCompiler, GatewayError, ProviderRegistry, type ProviderTarget, Stage, Strategy } from "@switchyard/core"
import { Integrations, ProviderAccess, StoredProviderAdapter, VirtualKeys } from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"
import {
  DEFAULT_WORKSPACE,
  OTHER_WORKSPACE,
  recordingAdapter,
  repositoriesOn,
  requestFrom,
  serverSecret
} from "./support/Fixtures.ts"

const STORED_KEY = "sk-stored-team-key-0001"
const CALLER_KEY = "sk-caller-own-key"
const CALLER_HOST = "https://attacker.example/v1"

/** The stored-credentials adapter over a recording base adapter for openai and anthropic. */
const setup = Effect.gen(function*() {
  const recording = recordingAdapter(["openai", "anthropic"])
  const base = ProviderRegistry.ProviderRegistry.fromAdapters([recording.adapter])
  const adapter = StoredProviderAdapter.make(base, yield* Integrations.Integrations, yield* VirtualKeys.VirtualKeys)
  const call = (target: ProviderTarget.ProviderTarget, workspaceId = DEFAULT_WORKSPACE) =>
    Effect.flatMap(adapter.make(target), (dispatch) => dispatch(requestFrom(workspaceId)))
  return { recording, adapter, call }
})

const createIntegration = (
  slug: string,
  credentials: { readonly api_key?: string; readonly custom_host?: string } = { api_key: STORED_KEY },
  workspaceId = DEFAULT_WORKSPACE,
  provider = "openai"
) =>
  Integrations.Integrations.use((integrations) => integrations.create(workspaceId, { slug, provider, ...credentials }))

const removeIntegration = (slug: string) =>
  Integrations.Integrations.use((integrations) => integrations.remove(DEFAULT_WORKSPACE, slug))

/** A leaf naming `provider` with every setting a config may give it, and credentials of the caller's own. */
const leaf = (provider: string, extra: Partial<ProviderTarget.ProviderTarget> = {}): ProviderTarget.ProviderTarget => ({
  provider,
  api_key: CALLER_KEY,
  custom_host: CALLER_HOST,
  Authorization: `Bearer ${CALLER_KEY}`,
  cloud1_secret_access_key: "caller-cloud-secret",
  override_params: { model: "gpt-4o", temperature: 0 },
  forward_headers: ["x-request-origin"],
  request_timeout: 1234,
  strict_vendor_compliance: true,
  ...extra
})

const leafSettings = {
  override_params: { model: "gpt-4o", temperature: 0 },
  forward_headers: ["x-request-origin"],
  request_timeout: 1234,
  strict_vendor_compliance: true
}

layer(repositoriesOn(TestDatabase.layerSqlite))("StoredProviderAdapter", (it) => {
  it.effect("serves the stored provider name, under which every @slug and virtual key is compiled", () =>
    Effect.gen(function*() {
      const { adapter } = yield* setup
      assert.deepStrictEqual(adapter.names, [ConfigCompiler.STORED_PROVIDER])
    }))

  it.effect("an @slug target calls the integration's provider with the stored credentials", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      yield* createIntegration("team", { api_key: STORED_KEY, custom_host: "https://llm.internal.example/v1" })
      yield* call(leaf("@team"))
      assert.deepStrictEqual(recording.built, [{
        ...leafSettings,
        provider: "openai",
        api_key: STORED_KEY,
        custom_host: "https://llm.internal.example/v1"
      }])
      assert.strictEqual(recording.received.length, 1)
    }))

  it.effect("the leaf's own api_key, custom_host and other credentials never reach the stored provider", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      yield* createIntegration("key-only", { api_key: STORED_KEY })
      yield* call(leaf("@key-only"))
      const [built] = recording.built
      assert.deepStrictEqual(built, { ...leafSettings, provider: "openai", api_key: STORED_KEY })
      assert.notInclude(JSON.stringify(built), CALLER_KEY)
      assert.notInclude(JSON.stringify(built), CALLER_HOST)
      assert.notInclude(JSON.stringify(built), "caller-cloud-secret")
    }))

  it.effect("an unknown @slug is NotFound (404) naming it, and no provider is built", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      const error = yield* Effect.flip(call(leaf("@nobody")))
      assert.instanceOf(error, GatewayError.NotFound)
      assert.include(error.message, "@nobody")
      assert.strictEqual(GatewayError.toHttp(error).status, 404)
      assert.deepStrictEqual(recording.built, [])
    }))

  it.effect("another workspace's @slug is NotFound for the caller", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      yield* createIntegration("elsewhere", { api_key: STORED_KEY }, OTHER_WORKSPACE)
      assert.strictEqual((yield* Effect.flip(call(leaf("@elsewhere"))))._tag, "NotFound")
      yield* call(leaf("@elsewhere"), OTHER_WORKSPACE)
      assert.strictEqual(recording.built[0]?.api_key, STORED_KEY)
    }))

  it.effect("one target serves each workspace with its own integration of that slug", () =>
    Effect.gen(function*() {
      const { recording, adapter } = yield* setup
      yield* createIntegration("shared-name", { api_key: "sk-ours" })
      yield* createIntegration("shared-name", { api_key: "sk-theirs" }, OTHER_WORKSPACE, "anthropic")
      const dispatch = yield* adapter.make(leaf("@shared-name"))
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      yield* dispatch(requestFrom(OTHER_WORKSPACE))
      assert.deepStrictEqual(recording.built.map((target) => [target.provider, target.api_key]), [
        ["openai", "sk-ours"],
        ["anthropic", "sk-theirs"]
      ])
    }))

  it.effect("a virtual_key target calls the virtual key's provider with its credentials", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      const created = yield* VirtualKeys.VirtualKeys.use((virtualKeys) =>
        virtualKeys.create(DEFAULT_WORKSPACE, { name: "legacy", provider: "anthropic", api_key: STORED_KEY })
      )
      yield* call(leaf(ConfigCompiler.STORED_PROVIDER, { virtual_key: created.key }))
      assert.deepStrictEqual(recording.built, [{ ...leafSettings, provider: "anthropic", api_key: STORED_KEY }])
    }))

  it.effect("an unknown or removed virtual key is NotFound naming the header", () =>
    Effect.gen(function*() {
      const { call } = yield* setup
      const unknown = yield* Effect.flip(call(leaf(ConfigCompiler.STORED_PROVIDER, { virtual_key: "vk-unknown" })))
      assert.strictEqual(unknown._tag, "NotFound")
      assert.include(unknown.message, "x-gateway-virtual-key")
      const created = yield* VirtualKeys.VirtualKeys.use((virtualKeys) =>
        virtualKeys.create(OTHER_WORKSPACE, { name: "theirs", provider: "openai", api_key: STORED_KEY })
      )
      const theirs = yield* Effect.flip(call(leaf(ConfigCompiler.STORED_PROVIDER, { virtual_key: created.key })))
      assert.strictEqual(theirs._tag, "NotFound")
    }))

  it.effect("builds the provider's dispatch once while the integration is unchanged", () =>
    Effect.gen(function*() {
      const { recording, adapter } = yield* setup
      yield* createIntegration("steady")
      const dispatch = yield* adapter.make(leaf("@steady"))
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      assert.strictEqual(recording.built.length, 1)
      assert.strictEqual(recording.received.length, 2)
    }))

  it.effect("a re-created integration rebuilds the dispatch with its new credentials", () =>
    Effect.gen(function*() {
      const { recording, adapter } = yield* setup
      yield* createIntegration("rotated", { api_key: "sk-before-rotation" })
      const dispatch = yield* adapter.make(leaf("@rotated"))
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      yield* removeIntegration("rotated")
      yield* createIntegration("rotated", { api_key: "sk-after-rotation" })
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      assert.deepStrictEqual(recording.built.map((target) => target.api_key), [
        "sk-before-rotation",
        "sk-after-rotation"
      ])
    }))

  it.effect("a removed integration stops serving the target already compiled for it", () =>
    Effect.gen(function*() {
      const { adapter } = yield* setup
      yield* createIntegration("retired")
      const dispatch = yield* adapter.make(leaf("@retired"))
      yield* dispatch(requestFrom(DEFAULT_WORKSPACE))
      yield* removeIntegration("retired")
      assert.strictEqual((yield* Effect.flip(dispatch(requestFrom(DEFAULT_WORKSPACE))))._tag, "NotFound")
    }))

  it.effect("an integration of a provider this gateway lacks is an InvalidRequest (400)", () =>
    Effect.gen(function*() {
      const { recording, call } = yield* setup
      yield* createIntegration("exotic", { api_key: STORED_KEY }, DEFAULT_WORKSPACE, "mistral-ai")
      const error = yield* Effect.flip(call(leaf("@exotic")))
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.include(error.message, "mistral-ai")
      assert.deepStrictEqual(recording.built, [])
    }))
})

const compiledBase = recordingAdapter(["openai"])

it.effect("ProviderAccess.layer routes a compiled @slug config through the stored adapter", () =>
  Effect.gen(function*() {
    const recording = compiledBase
    yield* createIntegration("compiled", { api_key: STORED_KEY })
    const dispatch = yield* ConfigCompiler.compile({ provider: "@compiled", override_params: { model: "gpt-4o" } })
      .pipe(
        Effect.provide([Strategy.Strategies.layerSingle, Stage.Stages.layer])
      )
    const response = yield* dispatch(requestFrom(DEFAULT_WORKSPACE, { model: "ignored", messages: [] }))
    assert.strictEqual(response.headers[ConfigCompiler.PROVIDER_HEADER], "@compiled")
    const [built] = recording.built
    assert.strictEqual(built?.provider, "openai")
    assert.strictEqual(built?.api_key, STORED_KEY)
    assert.strictEqual(recording.received[0]?.body.model, "gpt-4o")
  }).pipe(
    Effect.provide(
      ProviderAccess.layer([compiledBase.adapter]).pipe(
        Layer.provideMerge(Layer.merge(TestDatabase.layerSqlite, serverSecret))
      )
    )
  ))
