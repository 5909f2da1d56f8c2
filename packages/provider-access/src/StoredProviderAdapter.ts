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
import { Effect, Option } from "effect"
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
  make: (target) => Effect.succeed(storedDispatch(resolver(base, integrations, virtualKeys, hosts, target))),
  countMessageTokens: (target) =>
    Effect.succeed(storedCounter(resolver(base, integrations, virtualKeys, hosts, target)))
})

/** The stored provider of a workspace, by version; opened (hosts checked, adapter found) only when not yet built. */
interface Resolved {
  /** The stored object's id and version: equal keys mean equal credentials. */
  readonly key: string
  readonly open: Effect.Effect<Opened, GatewayError.InvalidRequest>
}

interface Opened {
  readonly adapter: ProviderRegistry.ProviderAdapter
  readonly target: ProviderTarget.ProviderTarget
}

type Resolver = (workspaceId: string) => Effect.Effect<Resolved, GatewayError.GatewayError>

const resolver = (
  base: ProviderRegistry.ProviderRegistry["Service"],
  integrations: Integrations["Service"],
  virtualKeys: VirtualKeys["Service"],
  hosts: TrustedHosts.TrustedHosts,
  target: ProviderTarget.ProviderTarget
): Resolver => {
  const settings = settingsOf(target)
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
  return (workspaceId) =>
    Effect.gen(function*() {
      const found = yield* resolve(workspaceId)
      if (found._tag === "None") return yield* missing
      const stored = found.value
      const open = Effect.gen(function*() {
        yield* checkUrls(stored)
        const adapter = base.find(stored.provider)
        if (adapter._tag === "None" || stored.provider.startsWith("@")) {
          return yield* new GatewayError.InvalidRequest({
            message: `provider: the stored provider "${stored.provider}" is not known to this gateway`,
            param: "provider"
          })
        }
        const target: ProviderTarget.ProviderTarget = { ...settings, ...stored.credentials, provider: stored.provider }
        return { adapter: adapter.value, target }
      })
      return { key: `${stored.id}:${stored.version}`, open }
    })
}

const storedDispatch = (resolve: Resolver): Dispatch.Dispatch => {
  const byVersion = new LeastRecentlyUsed.LeastRecentlyUsed<string, Dispatch.Dispatch>(8)
  return (request) =>
    Effect.gen(function*() {
      const resolved = yield* resolve(request.context.principal.workspaceId)
      let dispatch = byVersion.get(resolved.key)
      if (dispatch === undefined) {
        const opened = yield* resolved.open
        dispatch = yield* opened.adapter.make(opened.target)
        byVersion.set(resolved.key, dispatch)
      }
      return yield* dispatch(request)
    })
}

/** The stored provider's own count, when its adapter has one; `None` otherwise. */
const storedCounter = (resolve: Resolver): ProviderRegistry.MessageTokenCounter => {
  const byVersion = new LeastRecentlyUsed.LeastRecentlyUsed<string, ProviderRegistry.MessageTokenCounter>(8)
  return (request) =>
    Effect.gen(function*() {
      const resolved = yield* resolve(request.workspaceId)
      let counter = byVersion.get(resolved.key)
      if (counter === undefined) {
        const opened = yield* resolved.open
        const count = opened.adapter.countMessageTokens
        // the stored provider's API has no count: the edge counts locally
        counter = count === undefined ? () => Effect.succeed(Option.none()) : yield* count(opened.target)
        byVersion.set(resolved.key, counter)
      }
      return yield* counter(request)
    })
}
