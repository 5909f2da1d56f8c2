import { assert, describe, it, layer } from "@effect/vitest"
import { GatewayError, ProviderSelection, RequestContext } from "@switchyard/core"
import type { GatewayConfig } from "@switchyard/protocol"
import { ProviderAccess, StoredConfigs, StoredSelectors } from "@switchyard/provider-access"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Option } from "effect"
import { DEFAULT_WORKSPACE, OTHER_WORKSPACE, repositoriesOn } from "./support/Fixtures.ts"

const { Headers } = RequestContext

const routing: GatewayConfig.GatewayConfig = { virtual_key: "vk-primary", retry: { attempts: 1 } }
const rerouted: GatewayConfig.GatewayConfig = { virtual_key: "vk-secondary" }

const input = (
  headers: Readonly<Record<string, string>>,
  model?: string,
  workspaceId = DEFAULT_WORKSPACE
): ProviderSelection.SelectionInput => ({ headers, workspaceId, model })

/** The selection's key and config, or none. */
const selectBy = (selector: ProviderSelection.Selector, selection: ProviderSelection.SelectionInput) =>
  Effect.flatMap(selector.select(selection), (found) =>
    Option.match(found, {
      onNone: () => Effect.succeedNone,
      onSome: ({ key, config }) => Effect.map(config, (node) => Option.some({ key, config: node }))
    }))

const createConfig = (config = routing, workspaceId = DEFAULT_WORKSPACE) =>
  StoredConfigs.StoredConfigs.use((configs) => configs.create(workspaceId, { name: "routing", config }))

const storedConfigHeader = StoredConfigs.StoredConfigs.useSync(StoredSelectors.storedConfigHeader)

/** Which selection all the selectors, in their order, make for this input. */
const selectAll = (selection: ProviderSelection.SelectionInput) =>
  Effect.gen(function*() {
    const selectors = yield* StoredConfigs.StoredConfigs.useSync(StoredSelectors.all)
    const selected = yield* ProviderSelection.selectWith(selectors, selection)
    return { key: selected.key, config: yield* selected.config }
  })

layer(repositoriesOn(TestDatabase.layerSqlite))("StoredSelectors", (it) => {
  describe("storedConfigHeader", () => {
    it.effect("a pc- id in x-gateway-config selects that stored config, keyed by workspace, id and version", () =>
      Effect.gen(function*() {
        const created = yield* createConfig()
        const selected = Option.getOrThrow(
          yield* selectBy(yield* storedConfigHeader, input({ [Headers.config]: created.id }))
        )
        assert.strictEqual(selected.key, `stored-config:${DEFAULT_WORKSPACE}:${created.id}:1`)
        assert.deepStrictEqual(selected.config, routing)
      }))

    it.effect("the id may come with surrounding spaces", () =>
      Effect.gen(function*() {
        const created = yield* createConfig()
        const selected = yield* selectBy(yield* storedConfigHeader, input({ [Headers.config]: ` ${created.id} ` }))
        assert.strictEqual(Option.getOrThrow(selected).key, `stored-config:${DEFAULT_WORKSPACE}:${created.id}:1`)
      }))

    it.effect("an updated config is selected under a new key, with its new content", () =>
      Effect.gen(function*() {
        const created = yield* createConfig()
        yield* StoredConfigs.StoredConfigs.use((configs) =>
          configs.update(DEFAULT_WORKSPACE, created.id, { config: rerouted })
        )
        const selected = Option.getOrThrow(
          yield* selectBy(yield* storedConfigHeader, input({ [Headers.config]: created.id }))
        )
        assert.strictEqual(selected.key, `stored-config:${DEFAULT_WORKSPACE}:${created.id}:2`)
        assert.deepStrictEqual(selected.config, rerouted)
      }))

    it.effect("an unknown pc- id is NotFound (404) naming the header", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(
          selectBy(yield* storedConfigHeader, input({ [Headers.config]: "pc-000000000000000000" }))
        )
        assert.instanceOf(error, GatewayError.NotFound)
        assert.include(error.message, Headers.config)
        assert.strictEqual(GatewayError.toHttp(error).status, 404)
      }))

    it.effect("another workspace's pc- id is NotFound", () =>
      Effect.gen(function*() {
        const theirs = yield* createConfig(routing, OTHER_WORKSPACE)
        const selector = yield* storedConfigHeader
        assert.strictEqual(
          (yield* Effect.flip(selectBy(selector, input({ [Headers.config]: theirs.id }))))._tag,
          "NotFound"
        )
        const selected = yield* selectBy(selector, input({ [Headers.config]: theirs.id }, undefined, OTHER_WORKSPACE))
        assert.strictEqual(Option.getOrThrow(selected).key, `stored-config:${OTHER_WORKSPACE}:${theirs.id}:1`)
      }))

    it.effect("a JSON config, or no config header, is left to the other selectors", () =>
      Effect.gen(function*() {
        const selector = yield* storedConfigHeader
        assert.isTrue(Option.isNone(yield* selectBy(selector, input({ [Headers.config]: "{\"virtual_key\":\"vk\"}" }))))
        assert.isTrue(Option.isNone(yield* selectBy(selector, input({}))))
      }))
  })

  describe("the selectors in order", () => {
    it.effect("are the JSON config, the stored config, the provider, the virtual key and the model", () =>
      Effect.gen(function*() {
        const selectors = yield* ProviderAccess.selectors
        assert.deepStrictEqual(selectors.map((selector) => selector.name), [
          Headers.config,
          "stored config",
          Headers.provider,
          Headers.virtualKey,
          "model @slug/model"
        ])
      }))

    it.effect("a stored config wins over x-gateway-provider, a virtual key and an @slug model", () =>
      Effect.gen(function*() {
        const created = yield* createConfig()
        const selected = yield* selectAll(input({
          [Headers.config]: created.id,
          [Headers.provider]: "@team",
          [Headers.virtualKey]: "vk-token"
        }, "@team/gpt-4o"))
        assert.deepStrictEqual(selected.config, routing)
      }))

    it.effect("x-gateway-provider @slug wins over a virtual key and an @slug model, and carries no caller key", () =>
      Effect.gen(function*() {
        const selected = yield* selectAll(input({
          [Headers.provider]: "@team",
          authorization: "Bearer sk-caller",
          [Headers.virtualKey]: "vk-token"
        }, "@other/gpt-4o"))
        assert.deepStrictEqual(selected, { key: "provider:@team", config: { provider: "@team" } })
      }))

    it.effect("x-gateway-virtual-key selects the virtual key, over an @slug model", () =>
      Effect.gen(function*() {
        const selected = yield* selectAll(input({ [Headers.virtualKey]: "vk-token" }, "@team/gpt-4o"))
        assert.deepStrictEqual(selected, { key: "virtual-key:vk-token", config: { virtual_key: "vk-token" } })
      }))

    it.effect("a model written @slug/model selects provider @slug with the model as override", () =>
      Effect.gen(function*() {
        const selected = yield* selectAll(input({}, "@team-openai/gpt-4o-mini"))
        assert.deepStrictEqual(selected, {
          key: "model:@team-openai/gpt-4o-mini",
          config: { provider: "@team-openai", override_params: { model: "gpt-4o-mini" } }
        })
      }))

    it.effect("nothing that names a provider is an InvalidRequest (400) listing the ways to name one", () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(selectAll(input({}, "gpt-4o")))
        assert.instanceOf(error, GatewayError.InvalidRequest)
        assert.include(error.message, Headers.virtualKey)
        assert.include(error.message, "@slug/model")
      }))
  })
})

describe("virtualKeyHeader", () => {
  it.effect("an empty or missing header selects nothing", () =>
    Effect.gen(function*() {
      assert.isTrue(
        Option.isNone(yield* selectBy(StoredSelectors.virtualKeyHeader, input({ [Headers.virtualKey]: "" })))
      )
      assert.isTrue(Option.isNone(yield* selectBy(StoredSelectors.virtualKeyHeader, input({}))))
    }))
})

describe("modelSlug", () => {
  it.effect("keeps every slash after the slug in the model", () =>
    Effect.gen(function*() {
      const selected = yield* selectBy(StoredSelectors.modelSlug, input({}, "@router/meta-llama/llama-3-70b"))
      assert.deepStrictEqual(Option.getOrThrow(selected).config, {
        provider: "@router",
        override_params: { model: "meta-llama/llama-3-70b" }
      })
    }))

  it.effect("selects nothing for a model without an integration slug", () =>
    Effect.gen(function*() {
      for (const model of [undefined, "gpt-4o", "@team", "@team/", "@Team/gpt-4o", "@-team/gpt-4o", "team/@x/y"]) {
        assert.isTrue(Option.isNone(yield* selectBy(StoredSelectors.modelSlug, input({}, model))), String(model))
      }
    }))
})
