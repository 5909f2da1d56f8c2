/**
 * The key of a target's circuit: what it calls (provider, host, model) and as whom (a short hash
 * of its credential). Targets that agree on these share one circuit, whichever config or replica
 * they come from; the secret itself never appears in a key, so keys can be logged and stored.
 */
import type { ProviderTarget } from "@switchyard/core"
import { createHash } from "node:crypto"

/** Fields that pick the upstream host (or the deployment on it) when no `custom_host` is set. */
const LOCATION_FIELDS = [
  "resource_name",
  "deployment_id",
  "cloud1_region",
  "cloud2_project_id",
  "cloud2_region",
  "cloud3_region",
  "cloud3_resource_name",
  "cloud3_endpoint_name",
  "cloud3_deployment_name"
] as const

/**
 * The key of `target`'s circuit, a JSON array `[provider, host, model, credentialId]`.
 *
 * @example
 * import { CircuitKey } from "@switchyard/circuit-breaker"
 * CircuitKey.of({ provider: "openai", api_key: "sk-…", override_params: { model: "gpt-4o" } })
 * // '["openai","default","gpt-4o","5c1e…(16 hex)"]'
 */
export const of = (target: ProviderTarget.ProviderTarget): string =>
  JSON.stringify([target.provider, hostOf(target), modelOf(target), credentialId(target)])

/**
 * The host a target calls: its `custom_host` (origin and path, without a trailing slash), or
 * `default` for the provider's own, followed by the fields that choose a region or resource.
 */
export const hostOf = (target: ProviderTarget.ProviderTarget): string => {
  const base = target.custom_host === undefined ? "default" : normalizedHost(target.custom_host)
  const location = LOCATION_FIELDS.flatMap((field) => {
    const value = target[field]
    return value === undefined ? [] : [`${field}=${value}`]
  })
  return [base, ...location].join(";")
}

/** The model the target pins with `override_params.model`; `*` when callers choose it. */
export const modelOf = (target: ProviderTarget.ProviderTarget): string => {
  const model = target.override_params?.model
  return typeof model === "string" ? model : "*"
}

/**
 * The first 16 hex digits of the SHA-256 of the target's credentials, `none` without any. A bearer
 * `Authorization` and the same `api_key` give one id.
 *
 * @example
 * import { CircuitKey } from "@switchyard/circuit-breaker"
 * CircuitKey.credentialId({ provider: "groq", api_key: "gsk-secret" }) // 16 hex digits
 */
export const credentialId = (target: ProviderTarget.ProviderTarget): string => {
  const parts = {
    api_key: target.api_key ?? bearerToken(target.Authorization) ?? target.Authorization,
    virtual_key: target.virtual_key,
    cloud1_access_key_id: target.cloud1_access_key_id,
    cloud1_secret_access_key: target.cloud1_secret_access_key,
    cloud2_service_account_json: target.cloud2_service_account_json === undefined
      ? undefined
      : canonicalJson(target.cloud2_service_account_json)
  }
  const present = Object.entries(parts).filter(([, value]) => value !== undefined)
  if (present.length === 0) return "none"
  return createHash("sha256").update(JSON.stringify(present)).digest("hex").slice(0, 16)
}

const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = authorization === undefined ? null : /^bearer\s+(.+)$/i.exec(authorization.trim())
  return match?.[1]
}

const normalizedHost = (host: string): string => {
  try {
    const url = new URL(host)
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
  } catch {
    return host.trim().replace(/\/+$/, "")
  }
}

/** JSON with object keys sorted, so the same service account in another key order is one id. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}
