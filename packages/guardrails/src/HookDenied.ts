/**
 * 446: a hook or guardrail with `deny` failed. The error is core's (`GatewayError.HookDenied`), so
 * routing sees the gateway's own decision, never an upstream failure to fall back from.
 */
import { GatewayError } from "@switchyard/core"

export const HookDenied = GatewayError.HookDenied
export type HookDenied = GatewayError.HookDenied

export const STATUS = 446
