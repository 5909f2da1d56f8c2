import { assert, describe, it } from "@effect/vitest"
import { ConfigCompiler, Dispatch, ProviderRegistry, Stage, Strategy } from "@switchyard/core"
import { Tracing } from "@switchyard/observability"
import { Effect, Layer, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { recordingAdapter, request } from "./support/Fakes.ts"

// With tracing on, the pipeline spans each upstream attempt and each checking stage, under the
// request's span; under a request whose trace is not sampled it makes none, as nothing would
// export them.

/**
 * A pipeline with one checking stage (limits) around one leaf, compiled with tracing on; the
 * stage's dispatch marked with `idle` when given.
 */
const tracedPipeline = (idle?: Dispatch.IdleTest) =>
  Effect.gen(function*() {
    const fake = recordingAdapter()
    const limits = Stage.make("limits", "checks", () =>
      Effect.succeed((next) => {
        const dispatch: Dispatch.Dispatch = (req) => next(req)
        return idle === undefined ? dispatch : Dispatch.withIdleTest(dispatch, idle)
      }))
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
const spansUnder = (sampled: boolean, idle?: Dispatch.IdleTest) =>
  Effect.gen(function*() {
    const { dispatch, fake } = yield* tracedPipeline(idle)
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

  it.effect("makes no span for a stage whose dispatch tells, as the request comes, that it has nothing to check", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_234)
      const asked: Array<readonly [string, number]> = []
      const idle = (answer: boolean): Dispatch.IdleTest => (req, now) => {
        asked.push([req.body.model as string, now])
        return answer
      }
      assert.deepStrictEqual(yield* spansUnder(true, idle(true)), ["chat gpt-4o-mini"])
      assert.deepStrictEqual(yield* spansUnder(true, idle(false)), ["limits check", "chat gpt-4o-mini"])
      // asked with the request and the clock's time, once each
      assert.deepStrictEqual(asked, [[request().body.model as string, 1_234], [request().body.model as string, 1_234]])
    }))

  it.effect("makes no span under a request whose trace is not sampled", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* spansUnder(false), [])
    }))
})
