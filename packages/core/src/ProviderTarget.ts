/**
 * A leaf of a config tree after inheritance: one provider with its credentials and the settings
 * that apply to its calls. Field names are the config object's own.
 */
import type { JsonObject } from "./GatewayRequest.ts"

export interface ProviderTarget {
  readonly provider: string
  readonly api_key?: string | undefined
  readonly custom_host?: string | undefined
  readonly virtual_key?: string | undefined
  readonly override_params?: JsonObject | undefined
  readonly forward_headers?: ReadonlyArray<string> | undefined
  readonly request_timeout?: number | undefined
  readonly strict_vendor_compliance?: boolean | undefined
  readonly vendor_organization?: string | undefined
  readonly vendor_project?: string | undefined
  readonly resource_name?: string | undefined
  readonly deployment_id?: string | undefined
  readonly api_version?: string | undefined
  readonly deployments?:
    | ReadonlyArray<{
      readonly deployment_id: string
      readonly alias: string
      readonly api_version: string
      readonly is_default?: boolean | undefined
    }>
    | undefined
  readonly cloud1_access_key_id?: string | undefined
  readonly cloud1_secret_access_key?: string | undefined
  readonly cloud1_region?: string | undefined
  readonly cloud1_session_token?: string | undefined
  readonly cloud2_project_id?: string | undefined
  readonly cloud2_region?: string | undefined
  readonly cloud2_service_account_json?: JsonObject | undefined
  readonly cloud3_region?: string | undefined
  readonly cloud3_deployment_name?: string | undefined
  readonly cloud3_deployment_type?: "serverless" | "managed" | undefined
  readonly cloud3_endpoint_name?: string | undefined
  readonly cloud3_api_version?: string | undefined
  readonly cloud3_resource_name?: string | undefined
  readonly cloud3_deployment_id?: string | undefined
  readonly cloud3_model_name?: string | undefined
  readonly Authorization?: string | undefined
}
