/**
 * The config object as the compiler reads it: a tree whose leaves are provider targets. The
 * protocol's decoded `GatewayConfig` is one of these; the compiler needs only this much of it.
 */
import type { JsonObject } from "./GatewayRequest.ts"
import type { ProviderTarget } from "./ProviderTarget.ts"

export interface StrategyNode {
  readonly mode: "single" | "loadbalance" | "fallback" | "conditional"
  readonly conditions?: ReadonlyArray<{ readonly query: JsonObject; readonly then: string }> | undefined
  readonly default?: string | undefined
  readonly on_status_codes?: ReadonlyArray<number> | undefined
}

export interface ConfigNode extends Omit<ProviderTarget, "provider"> {
  readonly provider?: string | undefined
  readonly strategy?: StrategyNode | undefined
  readonly targets?: ReadonlyArray<ConfigNode> | undefined
  readonly name?: string | undefined
  readonly weight?: number | undefined
  readonly on_status_codes?: ReadonlyArray<number> | undefined
}

/** Fields a target never takes from its ancestors. */
const NOT_INHERITED = new Set(["strategy", "targets", "weight", "name", "on_status_codes"])

/**
 * The fields a child sees: every inheritable field of its parent that it does not set itself,
 * with `override_params` merged key by key (the nearest setting wins).
 */
export const inherit = (parent: ConfigNode | undefined, child: ConfigNode): ConfigNode => {
  if (parent === undefined) return child
  const merged: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(parent)) {
    if (!NOT_INHERITED.has(key) && value !== undefined) merged[key] = value
  }
  for (const [key, value] of Object.entries(child)) {
    if (value !== undefined) merged[key] = value
  }
  if (parent.override_params !== undefined && child.override_params !== undefined) {
    merged.override_params = { ...parent.override_params, ...child.override_params }
  }
  return merged as ConfigNode
}
