/**
 * The validity rules of the gateway config (interface 2.1): the 18 field
 * combinations and rules 1-3, plus the conditional-mode names.
 *
 * A target inherits from its ancestors every field it does not set (all but
 * `strategy`, `targets`, `weight` and `name`), so the combination and
 * single-provider rules are checked against what each node will actually
 * use: a target may name only `override_params` under a parent that holds
 * the credentials.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { GatewayConfig } from "./GatewayConfig.ts"

/**
 * A config must hold every field of at least one of these.
 *
 * @since 0.1.0
 */
export const fieldCombinations: ReadonlyArray<ReadonlyArray<string>> = [
  ["provider", "api_key"],
  ["provider", "custom_host"],
  ["virtual_key"],
  ["strategy", "targets"],
  ["cache"],
  ["retry"],
  ["prompt_id"],
  ["forward_headers"],
  ["request_timeout"],
  ["provider", "cloud1_access_key_id", "cloud1_secret_access_key"],
  ["provider", "cloud2_region", "cloud2_service_account_json"],
  ["provider", "cloud2_region", "cloud2_project_id"],
  ["provider", "cloud3_deployment_name", "cloud3_deployment_type", "cloud3_region", "cloud3_api_version"],
  ["provider", "cloud3_endpoint_name", "cloud3_deployment_type"],
  ["after_request_hooks"],
  ["before_request_hooks"],
  ["input_guardrails"],
  ["output_guardrails"]
]

/**
 * The credential forms that complete `provider` in single-provider mode: the
 * combinations above that start with `provider`.
 *
 * @since 0.1.0
 */
export const credentialForms: ReadonlyArray<ReadonlyArray<string>> = fieldCombinations
  .filter((combination) => combination[0] === "provider")
  .map((combination) => combination.slice(1))

/** Fields a target does not take from its ancestors. @since 0.1.0 */
export const notInherited: ReadonlySet<string> = new Set(["strategy", "targets", "weight", "name"])

type Fields = { readonly [field: string]: unknown }

const has = (fields: Fields, field: string): boolean => fields[field] !== undefined

const join = (combination: ReadonlyArray<string>): string => combination.join("+")

const combinationsMessage = (fields: Fields): string => {
  const partial = fieldCombinations
    .filter((combination) => combination.some((field) => has(fields, field)))
    .map((combination) =>
      `${join(combination)} (missing ${combination.filter((field) => !has(fields, field)).join(", ")})`
    )
  const list = `must contain at least one of: ${fieldCombinations.map(join).join(", ")}`
  return partial.length === 0 ? list : `${list}; partly present: ${partial.join(", ")}`
}

const singleProviderMessage = `single-provider mode (no strategy) needs provider with one of: ${
  credentialForms.map(join).join(", ")
}; or virtual_key`

const checkNode = (
  node: GatewayConfig,
  inherited: Fields,
  path: ReadonlyArray<PropertyKey>,
  issues: Array<Schema.FilterIssue>
): void => {
  const own: Fields = Object.fromEntries(Object.entries(node).filter(([, value]) => value !== undefined))
  const effective: Fields = { ...inherited, ...own }
  // an integration slug (`@slug`) brings its stored credentials, as a virtual key does
  const storedProvider = typeof effective.provider === "string" && effective.provider.startsWith("@")
  if (
    !storedProvider && !fieldCombinations.some((combination) => combination.every((field) => has(effective, field)))
  ) {
    issues.push({ path, issue: combinationsMessage(effective) })
  } else if (
    // Rule 1: without a strategy, a named provider must come with a credential form.
    !storedProvider && !has(own, "strategy") && has(effective, "provider") && !has(effective, "virtual_key") &&
    !credentialForms.some((form) => form.every((field) => has(effective, field)))
  ) {
    issues.push({ path, issue: singleProviderMessage })
  }
  // Rule 3: targets without a strategy only make sense when this node routes by itself.
  if (has(own, "targets") && !has(own, "strategy") && !has(effective, "provider") && !has(effective, "virtual_key")) {
    issues.push({
      path: [...path, "strategy"],
      issue: "is required when targets are given without provider or virtual_key"
    })
  }
  const passedOn = Object.fromEntries(Object.entries(effective).filter(([field]) => !notInherited.has(field)))
  node.targets?.forEach((target, index) => checkNode(target, passedOn, [...path, "targets", index], issues))
}

/**
 * Field combinations and rules 1 and 3, over the whole tree with inheritance.
 *
 * @since 0.1.0
 */
export const treeRules = Schema.makeFilter((config: GatewayConfig) => {
  const issues: Array<Schema.FilterIssue> = []
  checkNode(config, {}, [], issues)
  return issues
})

/**
 * Rules of one node: a strategy needs targets, and in conditional mode every
 * `then` and the `default` must name one of them.
 *
 * @since 0.1.0
 */
export const nodeRules = Schema.makeFilter((node: GatewayConfig) => {
  const strategy = node.strategy
  if (strategy === undefined) return undefined
  if (node.targets === undefined) return { path: ["targets"], issue: "is required when strategy is given" }
  if (node.targets.length === 0) return { path: ["targets"], issue: "must have at least 1 item when strategy is given" }
  if (strategy.mode !== "conditional") return undefined
  const names = new Set(node.targets.flatMap((target) => target.name === undefined ? [] : [target.name]))
  const unknown = (name: string) => `must name a target (no target is named ${JSON.stringify(name)})`
  const issues: Array<Schema.FilterIssue> = []
  strategy.conditions?.forEach((condition, index) => {
    if (!names.has(condition.then)) {
      issues.push({ path: ["strategy", "conditions", index, "then"], issue: unknown(condition.then) })
    }
  })
  if (strategy.default !== undefined && !names.has(strategy.default)) {
    issues.push({ path: ["strategy", "default"], issue: unknown(strategy.default) })
  }
  return issues
})
