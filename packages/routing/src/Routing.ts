/**
 * The strategy table of this package: `single`, `loadbalance`, `fallback` and `conditional`, to
 * provide as core's `Strategy.Strategies`, the table `ConfigCompiler` builds strategy nodes from.
 */
import { Strategy } from "@switchyard/core"
import { Layer } from "effect"
import { conditional } from "./ConditionalStrategy.ts"
import { fallback } from "./FallbackStrategy.ts"
import { loadbalance } from "./LoadbalanceStrategy.ts"
import { single } from "./SingleStrategy.ts"

/**
 * Every strategy mode of the config object.
 *
 * @example
 * import { ConfigCompiler, type ConfigNode, Strategy } from "@switchyard/core"
 * import { Routing } from "@switchyard/routing"
 * import { Effect } from "effect"
 * const compiled = (config: ConfigNode.ConfigNode) =>
 *   ConfigCompiler.compile(config).pipe(Effect.provide(Strategy.Strategies.layer(Routing.strategies)))
 */
export const strategies: Strategy.StrategyTable = { single, loadbalance, fallback, conditional }

/**
 * Provides {@link strategies} as `Strategy.Strategies`. Give it to the layer that compiles
 * configs: `ConfigCompiler.ConfigCompiler.layer()` keeps the context it was built in.
 *
 * @example
 * import { ConfigCompiler } from "@switchyard/core"
 * import { Routing } from "@switchyard/routing"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(Layer.provide(Routing.layer))
 */
export const layer: Layer.Layer<Strategy.Strategies> = Strategy.Strategies.layer(strategies)
