/**
 * The stages around each leaf target's own upstream call (prompt, guardrails, limits, cache, retry,
 * circuit breaker, timeout): each feature package's layer adds its stage with a declared phase,
 * and the pipeline orders stages by phase, so stage layers merge in any order and give the same
 * pipeline. Two stages for one phase stop the start-up with an error naming both; none is ever
 * dropped in silence.
 *
 * @example
 * import { ConfigCompiler, Stage } from "@switchyard/core"
 * import { Effect, Layer } from "effect"
 * const logging = Stage.layer(Effect.succeed(Stage.make("timeout", "my-timeout", () => Effect.succeed((next) => next))))
 * const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(Layer.provide(logging), Layer.provide(Stage.Stages.layer))
 */
import { Context, Data, Effect, Layer } from "effect"
import type { Middleware } from "./Dispatch.ts"
import type { InvalidRequest } from "./GatewayError.ts"
import type { ProviderTarget } from "./ProviderTarget.ts"

/**
 * The phases, outermost first, and why each sits where it does. This list is the one place the
 * order of the per-target pipeline is decided.
 */
export const phases = [
  {
    phase: "prompt",
    why: "outermost: a leaf that names its own prompt (prompt_id) renders it first, so its guardrails check, " +
      "its limits count and its cache keys the messages its provider receives"
  },
  {
    phase: "guardrails",
    why: "input checks run before anything else, so a denied request is never counted, cached or sent; " +
      "output checks see every answer, cached ones included"
  },
  {
    phase: "limits",
    why: "after the input checks (a denied request spends nothing) and before the cache: a caller over its " +
      "budget is refused even when an answer is cached, and a cached answer is metered as free"
  },
  {
    phase: "cache",
    why: "outside retry, breaker and timeout: a hit never calls the provider, and a miss is stored once, " +
      "after its retries"
  },
  {
    phase: "retry",
    why: "outside the breaker and the timeout, so every attempt gets its own timeout and counts towards " +
      "its circuit"
  },
  {
    phase: "circuit-breaker",
    why: "inside retry: each attempt's outcome counts, and an open circuit stops the retries at once"
  },
  {
    phase: "timeout",
    why: "innermost: it bounds one upstream attempt, not the retries around it"
  }
] as const

export type Phase = (typeof phases)[number]["phase"]

/** Builds a leaf's middleware from the settings the leaf inherited; `path` names it in errors. */
export type StageFactory = (target: ProviderTarget, path: string) => Effect.Effect<Middleware, InvalidRequest>

/** One stage: what it is called, where it sits, and how it wraps a leaf. */
export interface Stage {
  readonly phase: Phase
  readonly name: string
  readonly factory: StageFactory
}

export const make = (phase: Phase, name: string, factory: StageFactory): Stage => ({ phase, name, factory })

/** A start-up error: two stages were given for one phase, or a stage came after the pipeline was built. */
export class StageConflict extends Data.TaggedError("StageConflict")<{ readonly message: string }> {}

const position: ReadonlyMap<Phase, number> = new Map(phases.map(({ phase }, index) => [phase, index]))

/**
 * The stages of this pipeline. Stage layers add to it while the application's layers are built;
 * the compiler reads them, in phase order, when it compiles its first config, and from then on
 * the set is closed.
 */
export class Stages extends Context.Service<Stages, {
  readonly add: (stage: Stage) => Effect.Effect<void, StageConflict>
  /** The stages outermost first; reading closes the set. */
  readonly ordered: Effect.Effect<ReadonlyArray<Stage>>
}>()("@switchyard/core/Stages") {
  /** An empty set, for stage layers to add to: provide it once, below them and the compiler. */
  static readonly layer: Layer.Layer<Stages> = Layer.sync(Stages, () => registry())

  /** A set holding exactly `stages` (in any order), for services and tests that list their own. */
  static readonly layerOf = (stages: ReadonlyArray<Stage>): Layer.Layer<Stages, StageConflict> =>
    Layer.effect(
      Stages,
      Effect.gen(function*() {
        const set = registry()
        for (const stage of stages) yield* set.add(stage)
        return set
      })
    )
}

const registry = (): Stages["Service"] => {
  const byPhase = new Map<Phase, Stage>()
  let closed: ReadonlyArray<Stage> | undefined
  return Stages.of({
    add: (stage) =>
      Effect.suspend(() => {
        if (closed !== undefined) {
          return Effect.fail(
            new StageConflict({ message: `stage "${stage.name}" came after the pipeline was compiled` })
          )
        }
        const present = byPhase.get(stage.phase)
        if (present !== undefined) {
          return Effect.fail(
            new StageConflict({
              message: `two stages for the phase "${stage.phase}": "${present.name}" and "${stage.name}"; ` +
                "provide one of them"
            })
          )
        }
        byPhase.set(stage.phase, stage)
        return Effect.void
      }),
    ordered: Effect.sync(() =>
      closed ??= [...byPhase.values()].sort((a, b) => (position.get(a.phase) ?? 0) - (position.get(b.phase) ?? 0))
    )
  })
}

/**
 * A layer that adds the stage `stage` builds to the pipeline; the stage's own requirements (its
 * stores, its embedder) stay in the layer's type.
 */
export const layer = <E, R>(stage: Effect.Effect<Stage, E, R>): Layer.Layer<never, E | StageConflict, R | Stages> =>
  Layer.effectDiscard(Effect.flatMap(stage, (built) => Stages.use((stages) => stages.add(built))))
