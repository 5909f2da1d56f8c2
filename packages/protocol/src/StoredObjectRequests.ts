/**
 * Bodies of the routes that manage what the gateway keeps (extensions.md, "Authentication and
 * scopes" and "Choosing the provider"): API keys, provider integrations, virtual keys and
 * stored configs. Each is closed: a misspelt field is a 400, not silently dropped.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { fields as configFields, GatewayConfig } from "./GatewayConfig.ts"
import { DenyingVerdict, HookCheck } from "./Hooks.ts"
import { IntAtLeast, isAtLeast, isMaxChars, isMinItems, isNonEmptyString } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"

/** The scopes of extensions.md; `admin` implies every other. @since 0.1.0 */
export const Scope = Schema.Literals([
  "admin",
  "completions",
  "prompts.read",
  "prompts.write",
  "assistants",
  "files",
  "batches",
  "policies.read",
  "policies.write",
  "configs",
  "keys",
  "logs.read"
])

const Name = Schema.String.check(isNonEmptyString, isMaxChars(255))

/** `POST /v1/api-keys`. @since 0.1.0 */
export const CreateApiKey = closedStruct({
  name: Name,
  scopes: Schema.Array(Scope).check(isMinItems(1)),
  workspace_id: Schema.optionalKey(Schema.String.check(isNonEmptyString)),
  /** Unix seconds. */
  expires_at: Schema.optionalKey(IntAtLeast(1))
})
/** @since 0.1.0 */
export type CreateApiKey = typeof CreateApiKey.Type

/**
 * The provider fields a stored credential may hold: the config object's own names, so a stored
 * integration and an inline config say the same thing the same way.
 *
 * @since 0.1.0
 */
export const credentialFields = {
  api_key: configFields.api_key,
  custom_host: configFields.custom_host,
  vendor_organization: configFields.vendor_organization,
  vendor_project: configFields.vendor_project,
  resource_name: configFields.resource_name,
  deployment_id: configFields.deployment_id,
  api_version: configFields.api_version,
  deployments: configFields.deployments,
  cloud1_access_key_id: configFields.cloud1_access_key_id,
  cloud1_secret_access_key: configFields.cloud1_secret_access_key,
  cloud1_region: configFields.cloud1_region,
  cloud1_session_token: configFields.cloud1_session_token,
  cloud2_project_id: configFields.cloud2_project_id,
  cloud2_region: configFields.cloud2_region,
  cloud2_service_account_json: configFields.cloud2_service_account_json,
  cloud3_region: configFields.cloud3_region,
  cloud3_deployment_name: configFields.cloud3_deployment_name,
  cloud3_deployment_type: configFields.cloud3_deployment_type,
  cloud3_endpoint_name: configFields.cloud3_endpoint_name,
  cloud3_api_version: configFields.cloud3_api_version,
  cloud3_resource_name: configFields.cloud3_resource_name,
  cloud3_deployment_id: configFields.cloud3_deployment_id,
  cloud3_model_name: configFields.cloud3_model_name,
  Authorization: configFields.Authorization
}

/** Fields whose values are secrets: never returned, only a masked hint. @since 0.1.0 */
export const secretCredentialFields = [
  "api_key",
  "cloud1_secret_access_key",
  "cloud1_session_token",
  "cloud2_service_account_json",
  "Authorization"
] as const

const ProviderName = Schema.String.check(
  isNonEmptyString,
  Schema.isPattern(/^[a-z0-9][a-z0-9._-]*$/, { message: "must be a short provider name such as openai" })
)

const PricePerMillion = Schema.Number.check(isAtLeast(0))

/**
 * An integration's own prices in US dollars per million tokens: usage limits of type `cost` use
 * them, before the model catalog's, for every model called through the integration.
 *
 * @since 0.1.0
 */
export const IntegrationPricing = closedStruct({
  input_per_million: PricePerMillion,
  output_per_million: PricePerMillion
})
/** @since 0.1.0 */
export type IntegrationPricing = typeof IntegrationPricing.Type

/** `POST /v1/integrations`: the credentials behind `@slug`. @since 0.1.0 */
export const CreateIntegration = closedStruct({
  slug: Schema.String.check(
    Schema.isPattern(/^[a-z0-9][a-z0-9_-]{0,62}$/, {
      message: "must be 1 to 63 lower-case letters, digits, - or _, starting with a letter or digit"
    })
  ),
  provider: ProviderName,
  name: Schema.optionalKey(Name),
  pricing: Schema.optionalKey(IntegrationPricing),
  ...credentialFields
})
/** @since 0.1.0 */
export type CreateIntegration = typeof CreateIntegration.Type

/** `POST /v1/virtual-keys`: credentials behind an `x-gateway-virtual-key` (legacy). @since 0.1.0 */
export const CreateVirtualKey = closedStruct({
  name: Name,
  provider: ProviderName,
  ...credentialFields
})
/** @since 0.1.0 */
export type CreateVirtualKey = typeof CreateVirtualKey.Type

/** `POST /v1/configs`. @since 0.1.0 */
export const CreateConfig = closedStruct({ name: Name, config: GatewayConfig })
/** @since 0.1.0 */
export type CreateConfig = typeof CreateConfig.Type

/** `PUT /v1/configs/{id}`: either or both. @since 0.1.0 */
export const UpdateConfig = closedStruct({
  name: Schema.optionalKey(Name),
  config: Schema.optionalKey(GatewayConfig)
})
/** @since 0.1.0 */
export type UpdateConfig = typeof UpdateConfig.Type

/** `POST /v1/guardrails`: a named guardrail that configs refer to by its id. @since 0.1.0 */
export const CreateGuardrail = closedStruct({
  name: Name,
  checks: Schema.Array(HookCheck).check(isMinItems(1)),
  type: Schema.optionalKey(Schema.Literals(["guardrail", "mutator"])),
  deny: Schema.optionalKey(Schema.Boolean),
  async: Schema.optionalKey(Schema.Boolean),
  on_fail: Schema.optionalKey(DenyingVerdict),
  on_success: Schema.optionalKey(DenyingVerdict)
})
/** @since 0.1.0 */
export type CreateGuardrail = typeof CreateGuardrail.Type
