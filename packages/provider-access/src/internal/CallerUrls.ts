/**
 * Every URL a caller supplies in a config or in stored credentials, with the path of its field
 * (extensions.md, "Trusted hosts"): `custom_host` and a service account's `token_uri` at any depth
 * of the tree, and the URLs the default guardrail plugin's checks call (`webhook`, `log`, `jwt`)
 * in hooks and guardrails. Checking them when a config is saved or selected refuses a host that
 * may not be reached with a 400 naming the field, before anything is compiled or called.
 */
import { type GatewayError, TrustedHosts } from "@switchyard/core"
import { Effect } from "effect"

export interface CallerUrl {
  /** Where it sits, e.g. `config.targets[1].custom_host`. */
  readonly field: string
  readonly url: string
}

type Json = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const entries = (value: unknown): ReadonlyArray<readonly [number, unknown]> =>
  Array.isArray(value) ? [...value.entries()] : []

// The token endpoint every Google key file names; the vertex adapter calls it as a built-in URL.
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"

/** The parameters of the default plugin's checks that are URLs the gateway calls. */
const CHECK_URL_PARAMETERS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "default.webhook": ["webhookURL"],
  "default.log": ["logURL"],
  "default.jwt": ["jwksUri"]
}
const GUARDRAIL_SETTINGS: ReadonlySet<string> = new Set(["id", "deny", "async", "on_fail", "on_success"])

const join = (prefix: string, field: string) => (prefix === "" ? field : `${prefix}.${field}`)

/** `custom_host` and the service account's own `token_uri` of one config node or credential set. */
const providerUrls = (node: Json, prefix: string): Array<CallerUrl> => {
  const found: Array<CallerUrl> = []
  if (typeof node.custom_host === "string") found.push({ field: join(prefix, "custom_host"), url: node.custom_host })
  const account = node.cloud2_service_account_json
  if (isRecord(account) && typeof account.token_uri === "string" && account.token_uri !== GOOGLE_TOKEN_URI) {
    found.push({ field: join(prefix, "cloud2_service_account_json.token_uri"), url: account.token_uri })
  }
  return found
}

const checkUrls = (id: string, parameters: unknown, path: string): Array<CallerUrl> => {
  const names = CHECK_URL_PARAMETERS[id.includes(".") ? id : `default.${id}`] ?? []
  if (!isRecord(parameters)) return []
  return names.flatMap((name) => {
    const url = parameters[name]
    return typeof url === "string" ? [{ field: `${path}.${name}`, url }] : []
  })
}

/** The URLs of a node's hooks (long form) and guardrails (object form; stored ids are not here). */
const hookUrls = (node: Json, path: string): Array<CallerUrl> => {
  const found: Array<CallerUrl> = []
  for (const hooks of ["before_request_hooks", "after_request_hooks"]) {
    for (const [index, hook] of entries(node[hooks])) {
      if (!isRecord(hook)) continue
      for (const [at, check] of entries(hook.checks)) {
        if (!isRecord(check) || typeof check.id !== "string") continue
        found.push(...checkUrls(check.id, check.parameters, `${path}.${hooks}[${index}].checks[${at}].parameters`))
      }
    }
  }
  for (const guardrails of ["input_guardrails", "output_guardrails"]) {
    for (const [index, guardrail] of entries(node[guardrails])) {
      if (!isRecord(guardrail)) continue
      for (const [id, parameters] of Object.entries(guardrail)) {
        if (!GUARDRAIL_SETTINGS.has(id)) {
          found.push(...checkUrls(id, parameters, `${path}.${guardrails}[${index}]["${id}"]`))
        }
      }
    }
  }
  return found
}

/** Every caller URL of a config tree, `path` naming its root. */
export const ofConfig = (config: unknown, path = "config"): ReadonlyArray<CallerUrl> => {
  if (!isRecord(config)) return []
  const found = [...providerUrls(config, path), ...hookUrls(config, path)]
  for (const [index, target] of entries(config.targets)) found.push(...ofConfig(target, `${path}.targets[${index}]`))
  return found
}

/** The caller URLs of stored credentials (an integration, a virtual key), named as the body names them. */
export const ofCredentials = (credentials: Json, prefix = ""): ReadonlyArray<CallerUrl> =>
  providerUrls(credentials, prefix)

/** Refuses the first URL whose host may not be reached, in the order the fields were written. */
export const check = (
  hosts: TrustedHosts.TrustedHosts,
  urls: ReadonlyArray<CallerUrl>
): Effect.Effect<void, GatewayError.InvalidRequest> =>
  Effect.forEach(urls, ({ field, url }) => TrustedHosts.check(hosts, url, field), { discard: true })
