/**
 * `single`: always the first target. Core's own `single` answers with the first target's
 * Dispatch as it is; this one also labels its failures, so an enclosing strategy reports the
 * leaf that failed rather than the `single` node above it.
 */
import { Strategy } from "@switchyard/core"
import { Effect } from "effect"
import { labelFailures } from "./internal/TargetFailure.ts"

/**
 * @example
 * import { Strategy } from "@switchyard/core"
 * import { SingleStrategy } from "@switchyard/routing"
 * const table: Strategy.StrategyTable = { single: SingleStrategy.single }
 */
export const single: Strategy.StrategyCompiler = (strategy, targets, path) => {
  const first = targets[0]
  return first === undefined ? Strategy.single(strategy, targets, path) : Effect.succeed(labelFailures(first))
}
