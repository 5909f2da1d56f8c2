/**
 * Everything stored provider access adds to the pipeline, as one layer over the base registry of
 * provider adapters: the repositories, the registry extended with the stored-credentials adapter,
 * and the selectors in their order.
 */
import type { ServerSecret } from "@switchyard/auth"
import { ProviderRegistry, ProviderSelection, TrustedHosts } from "@switchyard/core"
import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import { Integrations } from "./Integrations.ts"
import { StoredConfigs } from "./StoredConfigs.ts"
import * as StoredProviderAdapter from "./StoredProviderAdapter.ts"
import * as StoredSelectors from "./StoredSelectors.ts"
import { VirtualKeys } from "./VirtualKeys.ts"

export const repositories = Layer.mergeAll(Integrations.layer, VirtualKeys.layer, StoredConfigs.layer)

/**
 * The registry of `base`'s adapters plus `@slug` and virtual keys, and the selectors that find
 * stored configs, integrations and virtual keys.
 */
export const layer = (
  base: ReadonlyArray<ProviderRegistry.ProviderAdapter>
): Layer.Layer<
  ProviderRegistry.ProviderRegistry | Integrations | VirtualKeys | StoredConfigs,
  never,
  SqlClient.SqlClient | ServerSecret.ServerSecret
> => {
  const registry = Layer.effect(
    ProviderRegistry.ProviderRegistry,
    Effect.gen(function*() {
      const baseRegistry = ProviderRegistry.ProviderRegistry.fromAdapters(base)
      const hosts = yield* TrustedHosts.TrustedHosts
      const stored = StoredProviderAdapter.make(baseRegistry, yield* Integrations, yield* VirtualKeys, hosts)
      return ProviderRegistry.ProviderRegistry.fromAdapters([...base, stored])
    })
  )
  return Layer.provideMerge(registry, repositories)
}

/**
 * The selectors of extensions.md in order, for `ProviderSelection.Selectors`, refusing caller URLs
 * that the `TrustedHosts` in context (the default list without one) does not allow.
 */
export const selectors: Effect.Effect<ReadonlyArray<ProviderSelection.Selector>, never, StoredConfigs> = Effect.gen(
  function*() {
    return StoredSelectors.all(yield* StoredConfigs, yield* TrustedHosts.TrustedHosts)
  }
)

/** Provides {@link selectors} as core's `ProviderSelection.Selectors`. */
export const layerSelectors: Layer.Layer<ProviderSelection.Selectors, never, StoredConfigs> = Layer.effect(
  ProviderSelection.Selectors,
  Effect.map(selectors, (list) => ProviderSelection.Selectors.of({ list }))
)
