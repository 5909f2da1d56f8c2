import { assert, describe, it } from "@effect/vitest"
import { ConfigCompiler, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Tracing } from "@switchyard/observability"
import { Effect, Layer, Tracer } from "effect"
import { recordingAdapter, request } from "./support/Fakes.ts"

// With tracing on, the pipeline spans each upstream attempt and each checking stage, under the
// request's span; under a request whose trace is not sampled it makes none, as nothing would
// export them.

/** A pipeline with one checking stage (limits) around one leaf, compiled with tracing on. */
const tracedPipeline = Effect.gen(function*() {
  const fake = recordingAdapter()
  const limits = Stage.make("limits", "checks", () => Effect.succeed((next) => (req) => next(req)))
  const dispatch = yield* ConfigCompiler.compile({ provider: "fake", api_key: "sk-1" }).pipe(
    Effect.provide([
      ProviderRegistry.ProviderRegistry.layer([fake.adapter]),
      Strategy.Strategies.layer({ single: Strategy.single }),
      Stage.Stages.layerOf([limits]).pipe(Layer.orDie),
      Tracing.layerEnabled
    ])
  )
  return { dispatch, fake }
})

/** Runs one request under a request span sampled or not, and answers the names of the spans the tracer was asked for. */
const spansUnder = (sampled: boolean) =>
  Effect.gen(function*() {
    const { dispatch, fake } = yield* tracedPipeline
    const made: Array<string> = []
    const tracer = Tracer.make({
      span(options) {
        made.push(options.name)
        return new Tracer.NativeSpan(options)
      }
    })
    const requestSpan = Tracer.externalSpan({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      sampled
    })
    yield* dispatch(request()).pipe(
      Effect.provideService(Tracer.ParentSpan, requestSpan),
      Effect.provideService(Tracer.Tracer, tracer)
    )
    assert.strictEqual(fake.received.length, 1)
    return made
  })

describe("PipelineSpans", () => {
  it.effect("spans the checking stage and the upstream attempt of a sampled request", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* spansUnder(true), ["limits check", "chat gpt-4o-mini"])
    }))

  it.effect("makes no span under a request whose trace is not sampled", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* spansUnder(false), [])
    }))
})
