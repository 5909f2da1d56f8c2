/**
 * The gateway config object (interface 2.1): routing strategy, targets,
 * credentials, cache, retries, circuit breaker, hooks and guardrails.
 *
 * The object is recursive (each target is a config) and closed: an unknown
 * member at any level fails with "unknown field", because a misspelt option
 * would otherwise be ignored without a word. Guardrail objects are the one
 * exception: their extra members are checks.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CacheConfig } from "./CacheConfig.ts"
import { CircuitBreakerConfig } from "./CircuitBreakerConfig.ts"
import { nodeRules, treeRules } from "./ConfigRules.ts"
import { Deployment } from "./Deployment.ts"
import { InputGuardrail, OutputGuardrail } from "./Guardrails.ts"
import { AfterRequestHook, BeforeRequestHook } from "./Hooks.ts"
import { IntAtLeast, isAtLeast, isHeaderText, JsonObject, StatusCode } from "./internal/Checks.ts"
import { strategyDepthRule } from "./internal/StrategyDepth.ts"
import { closedStruct } from "./internal/Structs.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"
import { RetryConfig } from "./RetryConfig.ts"
import { Strategy } from "./Strategy.ts"

const text = Schema.optionalKey(Schema.String)
const headerText = Schema.optionalKey(Schema.String.check(isHeaderText))
const list = <S extends Schema.Top>(item: S) => Schema.optionalKey(Schema.Array(item))

/** Every member of a config except `targets`, which makes it recursive. @since 0.1.0 */
export const fields = {
  strategy: Schema.optionalKey(Strategy),
  name: text,
  strict_vendor_compliance: Schema.optionalKey(Schema.Boolean),
  provider: text,
  api_key: headerText,
  virtual_key: text,
  custom_host: text,
  prompt_id: text,
  override_params: Schema.optionalKey(JsonObject),
  // Milliseconds.
  request_timeout: Schema.optionalKey(IntAtLeast(1)),
  forward_headers: list(Schema.String),
  weight: Schema.optionalKey(Schema.Number.check(isAtLeast(0))),
  on_status_codes: list(StatusCode),
  cache: Schema.optionalKey(CacheConfig),
  retry: Schema.optionalKey(RetryConfig),
  cb_config: Schema.optionalKey(CircuitBreakerConfig),
  before_request_hooks: list(BeforeRequestHook),
  after_request_hooks: list(AfterRequestHook),
  input_guardrails: list(InputGuardrail),
  output_guardrails: list(OutputGuardrail),
  resource_name: text,
  deployment_id: text,
  api_version: text,
  deployments: list(Deployment),
  vendor_organization: headerText,
  vendor_project: headerText,
  cloud1_access_key_id: headerText,
  cloud1_secret_access_key: text,
  cloud1_region: text,
  cloud1_session_token: headerText,
  cloud2_project_id: text,
  cloud2_region: text,
  cloud2_service_account_json: Schema.optionalKey(JsonObject),
  cloud3_region: text,
  cloud3_deployment_name: text,
  cloud3_deployment_type: Schema.optionalKey(Schema.Literals(["serverless", "managed"])),
  cloud3_endpoint_name: text,
  cloud3_api_version: text,
  cloud3_resource_name: text,
  cloud3_deployment_id: text,
  cloud3_model_name: text,
  Authorization: Schema.optionalKey(
    Schema.String.check(
      Schema.isStartingWith("Bearer ", { message: "must have the form Bearer <API_KEY>" }),
      isHeaderText
    )
  )
}

const Fields = Schema.Struct(fields)

/** A gateway config; `targets` are configs too. @since 0.1.0 */
export interface GatewayConfig extends Schema.Schema.Type<typeof Fields> {
  readonly targets?: ReadonlyArray<GatewayConfig>
}

/** What a config decodes from: a JSON object of every shape (members are checked by name). @since 0.1.0 */
export type GatewayConfigEncoded = { readonly [key: string]: unknown }

/**
 * One node of the config tree with the rules that need only the node itself
 * (targets present for a strategy, conditional names resolvable). Rules that
 * depend on inherited fields run once over the whole tree, in
 * {@link GatewayConfig}.
 *
 * @since 0.1.0
 */
export const ConfigNode: Schema.Codec<GatewayConfig, GatewayConfigEncoded> = closedStruct({
  ...fields,
  targets: list(Schema.suspend((): Schema.Codec<GatewayConfig, GatewayConfigEncoded> => ConfigNode))
}).check(nodeRules)

/**
 * A complete config: a {@link ConfigNode} whose tree satisfies the field
 * combinations and rules 1-3 of the interface (see the package README for how
 * they are read), with at most {@link MAX_STRATEGY_DEPTH} strategy nodes on any
 * path from the root (checked on the raw object, before any member is decoded).
 *
 * @example
 * import { Schema } from "effect"
 * import { GatewayConfig } from "@switchyard/protocol"
 * const config = Schema.decodeUnknownSync(GatewayConfig.GatewayConfig)({
 *   strategy: { mode: "fallback" },
 *   targets: [{ provider: "openai", api_key: "sk-1" }, { virtual_key: "anthropic-prod" }]
 * })
 *
 * @since 0.1.0
 */
export const GatewayConfig: Schema.Codec<GatewayConfig, GatewayConfigEncoded> = Schema.Record(
  Schema.String,
  Schema.Unknown
).check(strategyDepthRule).pipe(Schema.decodeTo(ConfigNode.check(treeRules)))

/** The most strategy nodes (objects with `strategy` and `targets`) one path may hold. @since 0.2.0 */
export { MAX_STRATEGY_DEPTH } from "./internal/StrategyDepth.ts"

/** Decodes a config; every `param` starts with `config`. @since 0.1.0 */
export const decode = decodeInput(GatewayConfig, { root: "config" })

/** @since 0.1.0 */
export const decodeResult = decodeInputResult(GatewayConfig, { root: "config" })
