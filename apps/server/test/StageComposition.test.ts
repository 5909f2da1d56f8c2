/**
 * The server's stage layers (guardrails, cache, retry with the timeout, circuit breaker) merged
 * in every order give one and the same pipeline: merging retry with the circuit breaker used to
 * drop retry in silence, because the second layer overwrote the first's list of middleware.
 */
import { assert, describe, it } from "@effect/vitest"
import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
import { CircuitBreakerMiddleware } from "@switchyard/circuit-breaker"
import {
  ConfigCompiler,
  type ConfigNode,
  GatewayError,
  GatewayResponse,
  type ProviderRegistry,
  ProviderRegistry as Registry,
  type RequestContext,
  Stage
} from "@switchyard/core"
import { Feedback, Guardrails } from "@switchyard/guardrails"
import { Resilience, Retry } from "@switchyard/retry"
import { Routing } from "@switchyard/routing"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"

type StageLayer = Layer.Layer<
  never,
  Stage.StageConflict,
  CacheStore.CacheStore | Embedder.Embedder | Feedback.FeedbackStore | Stage.Stages | CircuitBreakerStore
>
type CircuitBreakerStore = Layer.Success<typeof CircuitBreakerMiddleware.layerMemory>

const stageLayers: ReadonlyArray<readonly [string, StageLayer]> = [
  ["guardrails", Guardrails.stage(Effect.succeed({}))],
  ["cache", CacheMiddleware.stage()],
  ["retry and timeout", Resilience.layer],
  ["circuit breaker", CircuitBreakerMiddleware.stage]
]

const permutations = <A>(items: ReadonlyArray<A>): Array<Array<A>> =>
  items.length <= 1
    ? [[...items]]
    : items.flatMap((item, index) =>
      permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest])
    )

/** A provider that fails with 500 twice, then answers. */
const flaky = (): { readonly adapter: ProviderRegistry.ProviderAdapter; readonly calls: () => number } => {
  let calls = 0
  return {
    calls: () => calls,
    adapter: {
      names: ["flaky"],
      make: () =>
        Effect.succeed(() =>
          Effect.suspend(() => {
            calls += 1
            return calls <= 2
              ? Effect.fail(new GatewayError.UpstreamStatus({ provider: "flaky", status: 500, body: "", headers: {} }))
              : Effect.succeed(GatewayResponse.json({ object: "chat.completion", choices: [] }))
          })
        )
    }
  }
}

// a decoded config: the stages read `retry` and `cb_config`, which core's ConfigNode does not name
const decoded = {
  provider: "flaky",
  api_key: "sk",
  retry: { attempts: 2 },
  cb_config: { failure_threshold: 5, cooldown_interval: 30_000 },
  request_timeout: 5_000
}
const config: ConfigNode.ConfigNode = decoded

const context: RequestContext.RequestContext = {
  traceId: "0123456789abcdef0123456789abcdef",
  spanId: "0123456789abcdef",
  parentSpanId: undefined,
  spanName: undefined,
  metadata: {},
  principal: { keyId: "k", workspaceId: "ws", scopes: new Set(["admin"]) },
  headers: {},
  receivedAt: 0
}

const answerUnder = (order: ReadonlyArray<StageLayer>) =>
  Effect.gen(function*() {
    const provider = flaky()
    const compiler = ConfigCompiler.ConfigCompiler.layer().pipe(
      Layer.provide([Routing.layer, Registry.ProviderRegistry.layer([provider.adapter]), ...order]),
      Layer.provide([
        Stage.Stages.layer,
        CacheStore.layerMemory(),
        Embedder.layerLocal,
        Feedback.FeedbackStore.layerMemory,
        CircuitBreakerMiddleware.layerMemory
      ])
    )
    const phases = yield* Effect.flatMap(Stage.Stages, (stages) => stages.ordered).pipe(
      Effect.provide(Layer.provideMerge(Layer.mergeAll(Layer.empty, ...order), Stage.Stages.layer)),
      Effect.provide([
        CacheStore.layerMemory(),
        Embedder.layerLocal,
        Feedback.FeedbackStore.layerMemory,
        CircuitBreakerMiddleware.layerMemory
      ])
    )
    const answering = yield* ConfigCompiler.ConfigCompiler.use((service) =>
      Effect.flatMap(
        service.dispatch("flaky", Effect.succeed(config)),
        (dispatch) =>
          dispatch({ endpoint: "chat.completions", body: { model: "m", messages: [] }, stream: false, context })
      )
    ).pipe(Effect.provide(compiler), Effect.forkChild)
    // the retries wait out their backoff on the test clock
    yield* TestClock.adjust("1 minute")
    const response = yield* Fiber.join(answering)
    return {
      phases: phases.map((stage) => stage.phase),
      retries: response.headers[Retry.ATTEMPT_COUNT_HEADER],
      calls: provider.calls()
    }
  })

describe("the server's stage layers", () => {
  it.effect("merged in every order give the same pipeline, retry included", () =>
    Effect.gen(function*() {
      for (const order of permutations(stageLayers)) {
        const outcome = yield* answerUnder(order.map(([, layer]) => layer))
        assert.deepStrictEqual(outcome, {
          phases: ["guardrails", "cache", "retry", "circuit-breaker", "timeout"],
          retries: "2",
          calls: 3
        }, order.map(([name]) => name).join(", "))
      }
    }))

  it.effect("refuse the same stage given twice, at start-up, naming it", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.flatMap(Stage.Stages, (stages) => stages.ordered).pipe(
          Effect.provide(Layer.provideMerge(
            Layer.mergeAll(Resilience.layer, Retry.stage.pipe(Layer.fresh)),
            Stage.Stages.layer
          ))
        )
      )
      assert.strictEqual(
        error.message,
        "two stages for the phase \"retry\": \"retry\" and \"retry\"; provide one of them"
      )
    }))
})
