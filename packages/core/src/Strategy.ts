/**
 * How a strategy node combines its compiled children into one Dispatch. Core knows `single`;
 * the routing package adds `loadbalance`, `fallback` and `conditional` by providing its own
 * {@link Strategies}.
 */
import { Context, Effect, Layer } from "effect"
import type { ConfigNode, StrategyNode } from "./ConfigNode.ts"
import type { Dispatch } from "./Dispatch.ts"
import { InvalidRequest } from "./GatewayError.ts"

/** A compiled child of a strategy node. */
export interface CompiledTarget {
  /** Where it sits in the tree, e.g. `config.targets[1].targets[0]`. */
  readonly path: string
  readonly node: ConfigNode
  readonly dispatch: Dispatch
}

export type StrategyCompiler = (
  strategy: StrategyNode,
  targets: ReadonlyArray<CompiledTarget>,
  path: string
) => Effect.Effect<Dispatch, InvalidRequest>

export type StrategyTable = Readonly<Partial<Record<StrategyNode["mode"], StrategyCompiler>>>

/** `single`: always the first target. */
export const single: StrategyCompiler = (_strategy, targets, path) => {
  const first = targets[0]
  return first === undefined
    ? Effect.fail(
      new InvalidRequest({ message: `${path}.targets: must have at least 1 target`, param: `${path}.targets` })
    )
    : Effect.succeed(first.dispatch)
}

/**
 * The strategies the compiler can build; a strategy absent here is a 400 naming its mode. There
 * is no default: leaving the table out is a type error where the compiler is built.
 */
export class Strategies extends Context.Service<Strategies, { readonly table: StrategyTable }>()(
  "@switchyard/core/Strategies"
) {
  static readonly layer = (table: StrategyTable): Layer.Layer<Strategies> =>
    Layer.succeed(Strategies, Strategies.of({ table }))

  /** Only `single`, for a gateway without the routing package. */
  static readonly layerSingle: Layer.Layer<Strategies> = Strategies.layer({ single })
}
