/**
 * `loadbalance`: each request goes to a target drawn at random in proportion to its `weight`
 * (default 1; a weight of 0 is never drawn). A drawn target whose circuit is open
 * (`TargetsUnavailable`) is set aside and another is drawn among the rest; when every target is
 * open the answer is `TargetsUnavailable` (503). Any other failure is the answer.
 *
 * Randomness comes from Effect's `Random` service, so `Random.withSeed` makes draws repeatable.
 */
import { type Dispatch, GatewayError, type GatewayRequest, type GatewayResponse, type Strategy } from "@switchyard/core"
import { Effect, Random } from "effect"
import { allOpen, labelFailures, noTargets } from "./internal/TargetFailure.ts"

/** The weight a target has when it sets none. */
export const DEFAULT_WEIGHT = 1

interface Candidate {
  readonly weight: number
  readonly dispatch: Dispatch.Dispatch<never>
}

/**
 * @example
 * import { ConfigCompiler, Strategy } from "@switchyard/core"
 * import { LoadbalanceStrategy } from "@switchyard/routing"
 * import { Effect } from "effect"
 * const config = { strategy: { mode: "loadbalance" as const }, targets: [{ provider: "a", weight: 1 }, { provider: "b", weight: 3 }] }
 * const dispatch = ConfigCompiler.compile(config).pipe(
 *   Effect.provideService(Strategy.Strategies, { loadbalance: LoadbalanceStrategy.loadbalance })
 * ) // needs a ProviderRegistry; "b" answers about 3 requests in 4
 */
export const loadbalance: Strategy.StrategyCompiler = (_strategy, targets, path) => {
  if (targets.length === 0) return Effect.fail(noTargets(path))
  const candidates: Array<Candidate> = []
  for (const target of targets) {
    const weight = target.node.weight ?? DEFAULT_WEIGHT
    if (!Number.isFinite(weight) || weight < 0) {
      return Effect.fail(
        new GatewayError.InvalidRequest({
          message: `${target.path}.weight: must be a number >= 0 (got ${weight})`,
          param: `${target.path}.weight`
        })
      )
    }
    if (weight > 0) candidates.push({ weight, dispatch: labelFailures(target) })
  }
  if (candidates.length === 0) {
    return Effect.fail(
      new GatewayError.InvalidRequest({
        message: `${path}.targets: loadbalance needs at least one target with a weight above 0`,
        param: `${path}.targets`
      })
    )
  }
  const total = candidates.reduce((sum, candidate) => sum + candidate.weight, 0)
  return Effect.succeed((request) => draw(request, candidates, total, path))
}

const draw = (
  request: GatewayRequest.GatewayRequest,
  candidates: ReadonlyArray<Candidate>,
  total: number,
  path: string
): Effect.Effect<GatewayResponse.GatewayResponse, GatewayError.GatewayError> =>
  Effect.flatMap(Random.next, (random) => {
    const index = indexAt(candidates, random * total)
    const chosen = candidates[index]
    if (chosen === undefined) return Effect.die(new Error(`${path}: loadbalance drew no target`))
    return Effect.catchIf(
      chosen.dispatch(request),
      (error) => error instanceof GatewayError.TargetsUnavailable,
      (open) => {
        // the drawn target's circuit is open: draw again among the others, as if it were absent
        const rest = candidates.filter((_, i) => i !== index)
        return rest.length === 0 ? Effect.fail(allOpen(path, open)) : draw(request, rest, total - chosen.weight, path)
      }
    )
  })

/** The candidate whose share of `[0, total)` holds `point`. */
const indexAt = (candidates: ReadonlyArray<Candidate>, point: number): number => {
  let rest = point
  for (const [index, candidate] of candidates.entries()) {
    rest -= candidate.weight
    if (rest < 0) return index
  }
  // rounding may leave `point` a hair past the last share
  return candidates.length - 1
}
