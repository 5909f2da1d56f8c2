/**
 * The provider behind a stored credential. A target named `@slug` (an integration) or by a virtual
 * key reaches its provider only inside the stored-credentials adapter; usage limits need it sooner,
 * to match `provider` conditions and to price the model from the catalog. An app with stored
 * credentials provides a resolver (the gateway preset does, from its integrations and virtual
 * keys); without one, such a target's `provider` is its `@slug`, which the catalog does not price.
 * An integration may carry its own prices, which win over the catalog's.
 *
 * @example
 * import { StoredProviders } from "@switchyard/usage-limits"
 * import { Effect, Layer } from "effect"
 * const everyIntegrationIsOpenAI = Layer.succeed(
 *   StoredProviders.StoredProviders,
 *   { resolve: () => Effect.succeed({ provider: "openai", price: undefined }) }
 * )
 */
import { Context, Effect } from "effect"
import type { Price } from "./Metering.ts"

/** What names a stored credential: an integration's `@slug`, or a virtual key. */
export interface StoredTarget {
  readonly provider: string
  readonly virtual_key?: string | undefined
}

/** The provider behind a stored credential (its short name), and the credential's own prices. */
export interface StoredProvider {
  readonly provider: string
  readonly price: Price | undefined
  /**
   * A virtual key's id: what `virtual_key` conditions and group keys name, as `api_key` names the
   * key's id. Never its token, which is a credential (it would show in `value_key_usage_map`).
   */
  readonly virtualKeyId?: string | undefined
}

export interface Resolver {
  /** Undefined when the credential is unknown (its request then fails in the adapter). */
  readonly resolve: (workspaceId: string, target: StoredTarget) => Effect.Effect<StoredProvider | undefined>
}

/** None by default: a stored credential's provider stays its `@slug`. */
export const StoredProviders = Context.Reference<Resolver>("@switchyard/usage-limits/StoredProviders", {
  defaultValue: () => ({ resolve: () => Effect.succeed(undefined) })
})
