import { assert, describe, layer } from "@effect/vitest"
import { GatewayError, ProviderRegistry, ProviderSelection, RequestContext, TrustedHosts } from "@switchyard/core"
import type { GatewayConfig } from "@switchyard/protocol"
import {
  Integrations,
  StoredConfigs,
  StoredProviderAdapter,
  StoredSelectors,
  VirtualKeys
} from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Result } from "effect"
import { isIP } from "node:net"
import { DEFAULT_WORKSPACE, recordingAdapter, repositoriesOn, requestFrom } from "./support/Fixtures.ts"

// Names resolve through this table only: no query leaves the process, and nothing is connected to.
const table: Readonly<Record<string, ReadonlyArray<string>>> = {
  localhost: ["127.0.0.1", "::1"],
  "models.corp.example.com": ["10.0.0.8"],
  "api.public.example.com": ["93.184.216.34"]
}
const resolve: TrustedHosts.Resolver = (hostname, _options, callback) => {
  const addresses = table[hostname]
  if (addresses === undefined) return callback(Object.assign(new Error("not found"), { code: "ENOTFOUND" }), [])
  callback(null, addresses.map((address) => ({ address, family: isIP(address) })))
}

/** `GATEWAY_TRUSTED_HOSTS=""`: not even loopback. */
const strict = Result.getOrThrow(TrustedHosts.make("", { resolve }))

const refused = <A, R>(effect: Effect.Effect<A, GatewayError.GatewayError, R>) =>
  Effect.map(Effect.flip(effect), (error) => {
    assert.instanceOf(error, GatewayError.InvalidRequest)
    assert.strictEqual(GatewayError.toHttp(error).status, 400)
    return { message: error.message, param: error.param }
  })

const openai = (customHost: string) => ({ provider: "openai", api_key: "sk-x", custom_host: customHost })

const nested: GatewayConfig.GatewayConfig = {
  strategy: { mode: "fallback" },
  targets: [openai("https://api.public.example.com/v1"), openai("http://127.0.0.1:11434/v1")]
}

const createConfig = (config: GatewayConfig.GatewayConfig) =>
  StoredConfigs.StoredConfigs.use((configs) => configs.create(DEFAULT_WORKSPACE, { name: "routing", config }))

const listConfigs = StoredConfigs.StoredConfigs.use((configs) => configs.list(DEFAULT_WORKSPACE))

const strictRepositories = repositoriesOn(TestDatabase.layerSqlite).pipe(
  Layer.provide(Layer.succeed(TrustedHosts.TrustedHosts, strict))
)

layer(strictRepositories)("caller URLs are refused when saved", (it) => {
  it.effect("a stored config's nested custom_host on loopback: 400 naming its path, nothing stored", () =>
    Effect.gen(function*() {
      const error = yield* refused(createConfig(nested))
      assert.strictEqual(error.param, "config.targets[1].custom_host")
      assert.strictEqual(
        error.message,
        "config.targets[1].custom_host: 127.0.0.1 is a loopback address; the gateway calls only public addresses and the hosts GATEWAY_TRUSTED_HOSTS lists"
      )
      assert.deepStrictEqual(yield* listConfigs, [])
    }))

  it.effect("a stored config's guardrail and hook URLs, and a service account's token_uri", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [GatewayConfig.GatewayConfig, string]> = [
        [
          {
            ...openai("https://api.public.example.com"),
            input_guardrails: [{ deny: true, webhook: { webhookURL: "http://localhost:9/hook" } }]
          },
          "config.input_guardrails[0][\"webhook\"].webhookURL"
        ],
        [
          {
            ...openai("https://api.public.example.com"),
            before_request_hooks: [{
              id: "h",
              checks: [{ id: "default.jwt", parameters: { jwksUri: "http://169.254.169.254/keys", headerKey: "x" } }]
            }]
          },
          "config.before_request_hooks[0].checks[0].parameters.jwksUri"
        ],
        [
          {
            strategy: { mode: "single" },
            targets: [{
              ...openai("https://api.public.example.com"),
              output_guardrails: [{ "default.log": { logURL: "http://models.corp.example.com/log" } }]
            }]
          },
          "config.targets[0].output_guardrails[0][\"default.log\"].logURL"
        ],
        [
          {
            provider: "vertex-ai",
            cloud2_region: "us-central1",
            cloud2_project_id: "p",
            cloud2_service_account_json: { client_email: "a@b", private_key: "k", token_uri: "http://[::1]:9/token" }
          },
          "config.cloud2_service_account_json.token_uri"
        ]
      ]
      for (const [config, param] of cases) {
        assert.strictEqual((yield* refused(createConfig(config))).param, param)
      }
      assert.deepStrictEqual(yield* listConfigs, [])
    }))

  it.effect("a stored config with only public hosts is saved; an update to a private one is refused", () =>
    Effect.gen(function*() {
      const created = yield* createConfig(openai("https://api.public.example.com/v1"))
      const update = StoredConfigs.StoredConfigs.use((configs) =>
        configs.update(DEFAULT_WORKSPACE, created.id, { config: openai("http://models.corp.example.com:8000") })
      )
      const error = yield* refused(update)
      assert.strictEqual(error.param, "config.custom_host")
      assert.include(error.message, "models.corp.example.com resolves to 10.0.0.8, a private address")
      const kept = yield* StoredConfigs.StoredConfigs.use((configs) => configs.get(DEFAULT_WORKSPACE, created.id))
      assert.strictEqual(kept.version, 1)
    }))

  it.effect("an integration whose custom_host is localhost: 400 naming custom_host, nothing stored", () =>
    Effect.gen(function*() {
      const create = Integrations.Integrations.use((integrations) =>
        integrations.create(DEFAULT_WORKSPACE, {
          slug: "local",
          provider: "ollama",
          custom_host: "http://localhost:11434"
        })
      )
      const error = yield* refused(create)
      assert.strictEqual(error.param, "custom_host")
      assert.include(error.message, "custom_host: localhost resolves to 127.0.0.1, a loopback address")
      const listed = yield* Integrations.Integrations.use((integrations) => integrations.list(DEFAULT_WORKSPACE))
      assert.deepStrictEqual(listed, [])
    }))

  it.effect("a virtual key whose custom_host is cloud metadata is refused", () =>
    Effect.gen(function*() {
      const create = VirtualKeys.VirtualKeys.use((keys) =>
        keys.create(DEFAULT_WORKSPACE, {
          name: "k",
          provider: "openai",
          api_key: "sk",
          custom_host: "http://169.254.169.254"
        })
      )
      const error = yield* refused(create)
      assert.strictEqual(error.param, "custom_host")
      assert.include(error.message, "169.254.169.254 is a link-local address")
    }))
})

// Saved while loopback was trusted (the default list), used under a list that no longer trusts it.
layer(repositoriesOn(TestDatabase.layerSqlite))("caller URLs are checked again when used", (it) => {
  const selectWith = (headers: Readonly<Record<string, string>>) =>
    Effect.gen(function*() {
      const selectors = StoredSelectors.all(yield* StoredConfigs.StoredConfigs, strict)
      const selection = yield* ProviderSelection.selectWith(selectors, {
        headers,
        workspaceId: DEFAULT_WORKSPACE,
        model: undefined
      })
      return yield* selection.config
    })

  describe("when a config is selected", () => {
    it.effect("x-gateway-custom-host is named as the header", () =>
      Effect.gen(function*() {
        const error = yield* refused(selectWith({
          [RequestContext.Headers.provider]: "openai",
          [RequestContext.Headers.customHost]: "http://127.0.0.1:8000/v1",
          authorization: "Bearer sk-x"
        }))
        assert.strictEqual(error.param, "x-gateway-custom-host")
        assert.include(error.message, "x-gateway-custom-host: 127.0.0.1 is a loopback address")
      }))

    it.effect("a config header's nested target is named by its path", () =>
      Effect.gen(function*() {
        const error = yield* refused(selectWith({ [RequestContext.Headers.config]: JSON.stringify(nested) }))
        assert.strictEqual(error.param, "config.targets[1].custom_host")
      }))

    it.effect("a stored config saved under a wider list is refused when used", () =>
      Effect.gen(function*() {
        const created = yield* createConfig(nested)
        const error = yield* refused(selectWith({ [RequestContext.Headers.config]: created.id }))
        assert.strictEqual(error.param, "config.targets[1].custom_host")
      }))

    it.effect("public hosts and selections without a caller URL pass", () =>
      Effect.gen(function*() {
        const config = yield* selectWith({
          [RequestContext.Headers.provider]: "openai",
          [RequestContext.Headers.customHost]: "https://api.public.example.com/v1",
          authorization: "Bearer sk-x"
        })
        assert.strictEqual(config.custom_host, "https://api.public.example.com/v1")
        yield* selectWith({ [RequestContext.Headers.provider]: "openai", authorization: "Bearer sk-x" })
      }))
  })

  it.effect("an integration saved under a wider list is refused when used, its provider never built", () =>
    Effect.gen(function*() {
      yield* Integrations.Integrations.use((integrations) =>
        integrations.create(DEFAULT_WORKSPACE, {
          slug: "team",
          provider: "openai",
          api_key: "sk",
          custom_host: "http://127.0.0.1:9/v1"
        })
      )
      const recording = recordingAdapter(["openai"])
      const adapter = StoredProviderAdapter.make(
        ProviderRegistry.ProviderRegistry.fromAdapters([recording.adapter]),
        yield* Integrations.Integrations,
        yield* VirtualKeys.VirtualKeys,
        strict
      )
      const dispatch = yield* adapter.make({ provider: "@team" })
      const error = yield* refused(dispatch(requestFrom(DEFAULT_WORKSPACE)))
      assert.strictEqual(error.param, "custom_host")
      assert.include(error.message, "integration @team: custom_host: 127.0.0.1 is a loopback address")
      assert.deepStrictEqual(recording.built, [])
    }))
})
