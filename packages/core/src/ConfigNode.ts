/**
 * The config object as the compiler reads it: the protocol's decoded `GatewayConfig`, a tree
 * whose leaves are provider targets. Every field is already decoded and typed, so the stages read
 * their settings (`retry`, `cache`, `cb_config`, hooks) from it as they are, without decoding
 * them again.
 */
import type { GatewayConfig } from "@switchyard/protocol"

/** Every member optional, `undefined` included: a node built in code may leave a member unset. */
export type Loose<T> = { readonly [K in keyof T]?: T[K] | undefined }

/** A config node: the decoded config's members, typed as the protocol decodes them. */
export interface ConfigNode extends Loose<Omit<GatewayConfig.GatewayConfig, "targets">> {
  readonly targets?: ReadonlyArray<ConfigNode> | undefined
}

export type StrategyNode = NonNullable<ConfigNode["strategy"]>

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
