/**
 * What the management routes answer, as the packages that answer them declare it (never a
 * secret). Types only: none of these imports reaches the bundle, and a change to an answer's shape
 * fails the console's typecheck instead of drifting past it.
 */
import type { ApiKeys } from "@switchyard/auth"
import type { CircuitBoard } from "@switchyard/circuit-breaker"
import type { UsageLimitsPolicy } from "@switchyard/protocol"
import type { Integrations, StoredConfigs } from "@switchyard/provider-access"
import type { LogRecord as RequestLogRecord } from "@switchyard/request-log"
import type { RatePolicies } from "@switchyard/usage-limits"

/** `GET /v1/logs`, `GET /v1/logs/{id}` (which adds the request's feedback, shown under "More"). */
export type LogRecord = RequestLogRecord.LogRecord

/** One hook's or guardrail's result in a request log record; times in milliseconds. */
export type HookResult = LogRecord["hook_results"][number]

/** `GET /v1/policies/usage-limits`, with `value_key_usage_map` on `include_usage=true`. */
export type UsagePolicy = UsageLimitsPolicy.UsageLimitsPolicy

/** `GET /v1/policies/rate-limits`. */
export type RatePolicy = ReturnType<typeof RatePolicies.toWire>

/** `GET /v1/circuits`. */
export type Circuit = CircuitBoard.Circuit

/** `GET /v1/integrations`: settings with their secrets masked. */
export type Integration = Integrations.Integration

/** `GET /v1/configs`: the config with its credentials masked. */
export type StoredConfig = StoredConfigs.StoredConfig

/** `GET /v1/api-keys`: the key's prefix, never its secret. */
export type ApiKey = ApiKeys.ApiKey
