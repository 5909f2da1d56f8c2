import { assert, describe, it } from "@effect/vitest"
import { Stage } from "@switchyard/core"
import { Effect, Layer } from "effect"

const passThrough: Stage.StageFactory = () => Effect.succeed((next) => next)
const stageFor = (phase: Stage.Phase, name: string = phase) =>
  Stage.layer(Effect.succeed(Stage.make(phase, name, passThrough)))

const orderedUnder = (layers: ReadonlyArray<Layer.Layer<never, Stage.StageConflict, Stage.Stages>>) =>
  Effect.gen(function*() {
    const stages = yield* Stage.Stages
    return (yield* stages.ordered).map((stage) => stage.phase)
  }).pipe(Effect.provide(Layer.provideMerge(Layer.mergeAll(Layer.empty, ...layers), Stage.Stages.layer)))

/** Every order of `items`. */
const permutations = <A>(items: ReadonlyArray<A>): Array<Array<A>> =>
  items.length <= 1
    ? [[...items]]
    : items.flatMap((item, index) =>
      permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest])
    )

describe("Stage", () => {
  it("lists every phase once, with the reason for its position", () => {
    assert.deepStrictEqual(Stage.phases.map(({ phase }) => phase), [
      "prompt",
      "guardrails",
      "limits",
      "cache",
      "retry",
      "circuit-breaker",
      "timeout"
    ])
    for (const { why } of Stage.phases) assert.isAbove(why.length, 20)
  })

  it.effect("orders stage layers by phase, merged in any order", () =>
    Effect.gen(function*() {
      const layers = (["timeout", "guardrails", "retry", "cache", "circuit-breaker"] as const).map((phase) =>
        stageFor(phase)
      )
      for (const order of permutations(layers)) {
        assert.deepStrictEqual(yield* orderedUnder(order), [
          "guardrails",
          "cache",
          "retry",
          "circuit-breaker",
          "timeout"
        ])
      }
    }))

  it.effect("refuses two stages for one phase, naming both", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(orderedUnder([stageFor("retry", "retry"), stageFor("retry", "my-retry")]))
      assert.strictEqual(error._tag, "StageConflict")
      assert.match(error.message, /two stages for the phase "retry": "(my-)?retry" and "(my-)?retry"/)
    }))

  it.effect("keeps one stage when the same layer is provided twice: it is built once", () =>
    Effect.gen(function*() {
      const retry = stageFor("retry")
      assert.deepStrictEqual(yield* orderedUnder([retry, retry]), ["retry"])
    }))

  it.effect("closes the set once the pipeline has read it", () =>
    Effect.gen(function*() {
      const stages = yield* Stage.Stages
      yield* stages.add(Stage.make("cache", "cache", passThrough))
      yield* stages.ordered
      const error = yield* Effect.flip(stages.add(Stage.make("retry", "late", passThrough)))
      assert.strictEqual(error.message, "stage \"late\" came after the pipeline was compiled")
    }).pipe(Effect.provide(Stage.Stages.layer)))
})
