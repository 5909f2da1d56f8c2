/**
 * The adapter behind every `@slug` and virtual key: at request time it reads the caller's
 * workspace's stored credentials (briefly cached), and calls the provider they name through
 * that provider's own adapter. Resolving per request, not per compile, means a deleted
 * integration stops working within seconds, and one compiled config serves every workspace.
 */
import {
  ConfigCompiler,
  type Dispatch,
  GatewayError,
  LeastRecentlyUsed,
  ProviderRegistry,
  type ProviderTarget,
  TrustedHosts
} from "@switchyard/core"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Effect, type Option } from "effect"
import type { Integrations, ResolvedIntegration } from "./Integrations.ts"
import * as CallerUrls from "./internal/CallerUrls.ts"
import type { VirtualKeys } from "./VirtualKeys.ts"

const credentialKeys: ReadonlyArray<string> = Object.keys(StoredObjectRequests.credentialFields)

/**
 * The target's own settings (override_params, forward_headers, timeouts…) without any credential
 * field: stored credentials are never combined with a caller's host or key, or a config could
 * send a team's key to a host of the caller's choosing.
 */
const settingsOf = (target: ProviderTarget.ProviderTarget): Record<string, unknown> => {
  const settings: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(target)) {
    if (key !== "provider" && key !== "virtual_key" && !credentialKeys.includes(key)) settings[key] = value
  }
  return settings
}

/** `hosts` judges the stored hosts again when used: the list or the name's addresses may have changed since. */
export const make = (
  base: ProviderRegistry.ProviderRegistry["Service"],
  integrations: Integrations["Service"],
  virtualKeys: VirtualKeys["Service"],
  hosts: TrustedHosts.TrustedHosts = TrustedHosts.TrustedHosts.defaultValue()
): ProviderRegistry.ProviderAdapter => ({
  names: [ConfigCompiler.STORED_PROVIDER],
  make: (target) => Effect.succeed(storedDispatch(base, integrations, virtualKeys, hosts, target))
})

const storedDispatch = (
  base: ProviderRegistry.ProviderRegistry["Service"],
  integrations: Integrations["Service"],
  virtualKeys: VirtualKeys["Service"],
  hosts: TrustedHosts.TrustedHosts,
  target: ProviderTarget.ProviderTarget
): Dispatch.Dispatch => {
  const settings = settingsOf(target)
  const byVersion = new LeastRecentlyUsed.LeastRecentlyUsed<string, Dispatch.Dispatch>(8)
  const resolve = (
    workspaceId: string
  ): Effect.Effect<Option.Option<ResolvedIntegration>, GatewayError.InternalError> =>
    target.virtual_key !== undefined
      ? virtualKeys.resolve(workspaceId, target.virtual_key)
      : integrations.resolve(workspaceId, target.provider.slice(1))
  const missing = target.virtual_key !== undefined
    ? new GatewayError.NotFound({ message: "x-gateway-virtual-key: no such virtual key in this workspace" })
    : new GatewayError.NotFound({ message: `provider: no integration ${target.provider} in this workspace` })
  const owner = target.virtual_key !== undefined ? "the virtual key" : `integration ${target.provider}`
  const checkUrls = (stored: ResolvedIntegration) =>
    Effect.mapError(
      CallerUrls.check(hosts, CallerUrls.ofCredentials(stored.credentials)),
      (error) => new GatewayError.InvalidRequest({ message: `${owner}: ${error.message}`, param: error.param })
    )

  return (request) =>
    Effect.gen(function*() {
      const found = yield* resolve(request.context.principal.workspaceId)
      if (found._tag === "None") return yield* missing
      const stored = found.value
      const key = `${stored.id}:${stored.version}`
      let dispatch = byVersion.get(key)
      if (dispatch === undefined) {
        const resolved: ProviderTarget.ProviderTarget = {
          ...settings,
          ...stored.credentials,
          provider: stored.provider
        }
        yield* checkUrls(stored)
        const adapter = base.find(stored.provider)
        if (adapter._tag === "None" || stored.provider.startsWith("@")) {
          return yield* new GatewayError.InvalidRequest({
            message: `provider: the stored provider "${stored.provider}" is not known to this gateway`,
            param: "provider"
          })
        }
        dispatch = yield* adapter.value.make(resolved)
        byVersion.set(key, dispatch)
      }
      return yield* dispatch(request)
    })
}
