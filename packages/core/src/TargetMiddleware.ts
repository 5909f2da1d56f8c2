/**
 * Middleware that wraps each leaf target's own upstream calls (retry, timeout, circuit breaker):
 * features contribute factories here, and the compiler applies them to every leaf, outermost
 * first, with the settings that leaf inherited.
 */
import { Context, type Effect } from "effect"
import type { Middleware } from "./Dispatch.ts"
import type { InvalidRequest } from "./GatewayError.ts"
import type { ProviderTarget } from "./ProviderTarget.ts"

export type TargetMiddlewareFactory = (
  target: ProviderTarget,
  path: string
) => Effect.Effect<Middleware, InvalidRequest>

export const TargetMiddleware = Context.Reference<ReadonlyArray<TargetMiddlewareFactory>>(
  "@switchyard/core/TargetMiddleware",
  { defaultValue: () => [] }
)
