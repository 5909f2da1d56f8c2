/**
 * Retry and the request timeout together: the two stages of this package, in one layer. Where
 * each sits (retry outside the circuit breaker, the timeout innermost) is decided by their phases
 * in core's `Stage.phases`, not by the order layers are given in.
 */
import type { Stage } from "@switchyard/core"
import { Layer } from "effect"
import * as RequestTimeout from "./RequestTimeout.ts"
import * as Retry from "./Retry.ts"

/**
 * Adds retry and the request timeout to the pipeline.
 *
 * @example
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Resilience } from "@switchyard/retry"
 * import { Layer } from "effect"
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
 *   Layer.provide(Resilience.layer),
 *   Layer.provide(Stage.Stages.layer)
 * )
 */
export const layer: Layer.Layer<never, Stage.StageConflict, Stage.Stages> = Layer.mergeAll(
  Retry.stage,
  RequestTimeout.stage
)
