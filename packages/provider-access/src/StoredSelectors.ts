/**
 * The stored forms of provider selection, in the order extensions.md gives, around the header
 * forms core knows: a stored config id in `x-gateway-config`, `x-gateway-provider` (short name or
 * `@slug`), `x-gateway-virtual-key`, and a model written `@slug/model`. Every URL a caller puts in
 * a selected config or header is checked against `TrustedHosts` when the config is loaded.
 */
import { type ConfigNode, GatewayError, ProviderSelection, RequestContext, TrustedHosts } from "@switchyard/core"
import { Effect, Option } from "effect"
import * as CallerUrls from "./internal/CallerUrls.ts"
import type { StoredConfigs } from "./StoredConfigs.ts"

/** `x-gateway-config: pc-…`: a config stored in the caller's workspace. */
export const storedConfigHeader = (configs: StoredConfigs["Service"]): ProviderSelection.Selector => ({
  name: "stored config",
  select: ({ headers, workspaceId }) => {
    const id = headers[RequestContext.Headers.config]?.trim()
    if (id === undefined || !id.startsWith("pc-")) return Effect.succeed(Option.none())
    return Effect.flatMap(configs.resolve(workspaceId, id), (found) =>
      Option.match(found, {
        onNone: () =>
          Effect.fail(
            new GatewayError.NotFound({
              message: `${RequestContext.Headers.config}: no config ${id} in this workspace`
            })
          ),
        onSome: (stored) =>
          Effect.succeed(Option.some({
            key: `stored-config:${workspaceId}:${stored.id}:${stored.version}`,
            config: Effect.succeed(stored.config)
          }))
      }))
  }
})

/** `x-gateway-virtual-key`: the stored credentials it stands for. */
export const virtualKeyHeader: ProviderSelection.Selector = {
  name: RequestContext.Headers.virtualKey,
  select: ({ headers }) => {
    const token = headers[RequestContext.Headers.virtualKey]
    if (token === undefined || token === "") return Effect.succeed(Option.none())
    return Effect.succeed(Option.some({ key: `virtual-key:${token}`, config: Effect.succeed({ virtual_key: token }) }))
  }
}

/** A model written `@slug/model-name`: that integration, with that model. */
export const modelSlug: ProviderSelection.Selector = {
  name: "model @slug/model",
  select: ({ model }) => {
    const match = model === undefined ? null : /^@([a-z0-9][a-z0-9_-]{0,62})\/(.+)$/.exec(model)
    if (match === null) return Effect.succeed(Option.none())
    const [, slug = "", name = ""] = match
    return Effect.succeed(Option.some({
      key: `model:@${slug}/${name}`,
      config: Effect.succeed({ provider: `@${slug}`, override_params: { model: name } })
    }))
  }
}

/**
 * The selector whose loaded config is refused (400 naming the field) when a URL `urlsOf` finds in
 * it may not be reached. Loading happens once per distinct config, when it is compiled.
 */
const checkingUrls = (
  selector: ProviderSelection.Selector,
  hosts: TrustedHosts.TrustedHosts,
  urlsOf: (config: ConfigNode.ConfigNode) => ReadonlyArray<CallerUrls.CallerUrl>
): ProviderSelection.Selector => ({
  name: selector.name,
  select: (input) =>
    Effect.map(
      selector.select(input),
      Option.map((selection) => ({
        ...selection,
        config: Effect.tap(selection.config, (config) => CallerUrls.check(hosts, urlsOf(config)))
      }))
    )
})

/** `x-gateway-custom-host` is the only caller URL of a header selection. */
const customHostHeader = (config: ConfigNode.ConfigNode): ReadonlyArray<CallerUrls.CallerUrl> =>
  config.custom_host === undefined ? [] : [{ field: RequestContext.Headers.customHost, url: config.custom_host }]

const configUrls = (config: ConfigNode.ConfigNode) => CallerUrls.ofConfig(config)

/** Every selector, in precedence order, refusing caller URLs `hosts` does not allow. */
export const all = (
  configs: StoredConfigs["Service"],
  hosts: TrustedHosts.TrustedHosts = TrustedHosts.TrustedHosts.defaultValue()
): ReadonlyArray<ProviderSelection.Selector> => [
  checkingUrls(ProviderSelection.configHeader, hosts, configUrls),
  checkingUrls(storedConfigHeader(configs), hosts, configUrls),
  checkingUrls(ProviderSelection.providerHeader, hosts, customHostHeader),
  virtualKeyHeader,
  modelSlug
]
