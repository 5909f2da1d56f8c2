/**
 * The provider behind a stored credential. A target named `@slug` (an integration) or by a virtual
 * key reaches its provider only inside the stored-credentials adapter; usage limits need it sooner,
 * to match `provider` conditions and to price the model from the catalog. An app with stored
 * credentials provides a resolver (the gateway preset does, from its integrations and virtual
 * keys); without one, such a target's `provider` is its `@slug`, which the catalog does not price.
 *
 * @example
 * import { StoredProviders } from "@switchyard/usage-limits"
 * import { Effect, Layer } from "effect"
 * const everyIntegrationIsOpenAI = Layer.succeed(
 *   StoredProviders.StoredProviders,
 *   { providerOf: () => Effect.succeed("openai") }
 * )
 */
import { Context, Effect } from "effect"

/** What names a stored credential: an integration's `@slug`, or a virtual key. */
export interface StoredTarget {
  readonly provider: string
  readonly virtual_key?: string | undefined
}

export interface Resolver {
  /** The provider's short name, or undefined when the credential is unknown. */
  readonly providerOf: (workspaceId: string, target: StoredTarget) => Effect.Effect<string | undefined>
}

/** None by default: a stored credential's provider stays its `@slug`. */
export const StoredProviders = Context.Reference<Resolver>("@switchyard/usage-limits/StoredProviders", {
  defaultValue: () => ({ providerOf: () => Effect.succeed(undefined) })
})
