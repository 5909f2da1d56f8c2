/**
 * A leaf of a config tree after inheritance: one provider with its credentials and the settings
 * that apply to its calls (`retry`, `cache`, `cb_config`, hooks, guardrails), typed as the
 * protocol's config decodes them, so a stage reads its settings without decoding them again.
 * Field names are the config object's own.
 */
import type { GatewayConfig } from "@switchyard/protocol"
import type { Loose } from "./ConfigNode.ts"

export interface ProviderTarget extends
  Loose<
    Omit<GatewayConfig.GatewayConfig, "provider" | "strategy" | "targets" | "weight" | "name" | "on_status_codes">
  >
{
  readonly provider: string
}
