import { assert, describe, it } from "@effect/vitest"
import {
  ConfigCompiler,
  type ConfigNode,
  type Dispatch,
  GatewayError,
  ProviderRegistry,
  Stage,
  Strategy
} from "@switchyard/core"
import { Effect, Layer } from "effect"
import { bodyOf, chatBody, recordingAdapter, request } from "./support/Fakes.ts"

const compileWith = (
  adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>,
  config: ConfigNode.ConfigNode,
  options: { readonly stages?: ReadonlyArray<Stage.Stage>; readonly strategies?: Strategy.StrategyTable } = {}
) =>
  ConfigCompiler.compile(config).pipe(
    Effect.provide([
      ProviderRegistry.ProviderRegistry.layer(adapters),
      Strategy.Strategies.layer(options.strategies ?? { single: Strategy.single }),
      Stage.Stages.layerOf(options.stages ?? []).pipe(Layer.orDie)
    ])
  )

const twoTargets: ConfigNode.ConfigNode = {
  strategy: { mode: "single" },
  targets: [{ provider: "first", api_key: "sk-1" }, { provider: "second", api_key: "sk-2" }]
}

describe("ConfigCompiler.compile", () => {
  it.effect("builds a leaf with the adapter registered for its provider", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const dispatch = yield* compileWith([fake.adapter], { provider: "fake", api_key: "sk-1" })
      const response = yield* dispatch(request())
      assert.deepStrictEqual(fake.built, [{ provider: "fake", api_key: "sk-1" }])
      assert.deepStrictEqual(bodyOf(response), { provider: "fake", api_key: "sk-1" })
      assert.strictEqual(fake.received[0]?.body, chatBody)
    }))

  it.effect("labels a leaf's upstream failure with its provider and path too", () =>
    Effect.gen(function*() {
      const failing: ProviderRegistry.ProviderAdapter = {
        names: ["down"],
        make: () =>
          Effect.succeed(() =>
            Effect.fail(new GatewayError.UpstreamUnreachable({ provider: "down", message: "refused" }))
          )
      }
      const dispatch = yield* compileWith([failing], { provider: "down", api_key: "sk" })
      const error = yield* Effect.flip(dispatch(request()))
      assert.deepStrictEqual(GatewayError.toHttp(error).headers, {
        "x-gateway-provider": "down",
        "x-gateway-last-used-option-index": "config"
      })
    }))

  it.effect("labels a root leaf's answer with its provider and the path config", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const response = yield* (yield* compileWith([fake.adapter], { provider: "fake", api_key: "sk" }))(request())
      assert.strictEqual(response.headers["x-gateway-provider"], "fake")
      assert.strictEqual(response.headers["x-gateway-last-used-option-index"], "config")
    }))

  it.effect("labels a target's answer with the path of that target", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter(["first", "second"])
      const response = yield* (yield* compileWith([fake.adapter], twoTargets))(request())
      assert.strictEqual(response.headers["x-gateway-provider"], "first")
      assert.strictEqual(response.headers["x-gateway-last-used-option-index"], "config.targets[0]")
    }))

  it.effect("applies override_params over the request body", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const config = { provider: "fake", api_key: "sk", override_params: { model: "gpt-4o", temperature: 0 } }
      yield* (yield* compileWith([fake.adapter], config))(request({ ...chatBody, temperature: 1 }))
      assert.deepStrictEqual(fake.received[0]?.body, { ...chatBody, model: "gpt-4o", temperature: 0 })
    }))

  it.effect("applies override_params inherited from the root merged with the leaf's own", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const config: ConfigNode.ConfigNode = {
        override_params: { max_tokens: 5, temperature: 0 },
        strategy: { mode: "single" },
        targets: [{ provider: "fake", api_key: "sk", override_params: { temperature: 0.7 } }]
      }
      yield* (yield* compileWith([fake.adapter], config))(request())
      assert.deepStrictEqual(fake.received[0]?.body, { ...chatBody, max_tokens: 5, temperature: 0.7 })
    }))

  it.effect("passes credentials set on the root down to a leaf target", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const config: ConfigNode.ConfigNode = {
        api_key: "sk-root",
        vendor_organization: "org-1",
        strategy: { mode: "single" },
        targets: [{ provider: "fake" }]
      }
      const response = yield* (yield* compileWith([fake.adapter], config))(request())
      assert.deepStrictEqual(fake.built, [{ provider: "fake", api_key: "sk-root", vendor_organization: "org-1" }])
      assert.deepStrictEqual(bodyOf(response), { provider: "fake", api_key: "sk-root" })
    }))

  it.effect("fails with InvalidRequest naming the known providers for an unknown provider", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        compileWith([recordingAdapter(["zeta", "alpha"]).adapter], { provider: "nope", api_key: "sk" })
      )
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.message, "provider: unknown provider \"nope\"; known providers: alpha, zeta")
      assert.strictEqual(error.param, "provider")
    }))

  it.effect("fails with InvalidRequest when a leaf names no provider", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(compileWith([recordingAdapter().adapter], { api_key: "sk" }))
      assert.strictEqual(error.param, "config.provider")
    }))

  it.effect("compiles a leaf that names only its prompt around stages that see the placeholder provider", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const seen: Array<string> = []
      const stage = Stage.make("prompt", "watch", (target) =>
        Effect.sync(() => {
          seen.push(target.provider)
          return (next) => next
        }))
      const dispatch = yield* compileWith([fake.adapter], { prompt_id: "pp-1" }, { stages: [stage] })
      assert.deepStrictEqual(seen, [ConfigCompiler.PROMPT_PROVIDER])
      // without a stage that answers for it, such a leaf has no provider: the same 400, when it runs
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(error instanceof GatewayError.InvalidRequest ? error.param : error._tag, "config.provider")
      assert.deepStrictEqual(fake.built, [])
    }))

  it.effect("fails with InvalidRequest naming a strategy mode the gateway does not have", () =>
    Effect.gen(function*() {
      const config: ConfigNode.ConfigNode = { strategy: { mode: "loadbalance" }, targets: [{ provider: "fake" }] }
      const error = yield* Effect.flip(compileWith([recordingAdapter().adapter], config))
      assert.strictEqual(error.message, "config.strategy.mode: \"loadbalance\" is not available in this gateway")
      assert.strictEqual(error.param, "config.strategy.mode")
    }))

  it.effect("uses a strategy added through Strategies", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter(["first", "second"])
      const last: Strategy.StrategyCompiler = (_strategy, targets) => {
        const target = targets.at(-1)
        return target === undefined ? Effect.die("no targets") : Effect.succeed(target.dispatch)
      }
      const config: ConfigNode.ConfigNode = { ...twoTargets, strategy: { mode: "loadbalance" } }
      const dispatch = yield* compileWith([fake.adapter], config, { strategies: { loadbalance: last } })
      const response = yield* dispatch(request())
      assert.strictEqual(response.headers["x-gateway-last-used-option-index"], "config.targets[1]")
    }))

  it.effect("single answers with the first target", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter(["first", "second"])
      const response = yield* (yield* compileWith([fake.adapter], twoTargets))(request())
      assert.deepStrictEqual(bodyOf(response), { provider: "first", api_key: "sk-1" })
      assert.strictEqual(fake.received.length, 1)
    }))

  it.effect("single without targets fails with InvalidRequest", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        compileWith([recordingAdapter().adapter], { provider: "fake", strategy: { mode: "single" }, targets: [] })
      )
      assert.strictEqual(error.message, "config.targets: must have at least 1 target")
    }))

  it.effect("applies the stages to each leaf in the order of their phases, the first outermost", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter(["first", "second"])
      const log: Array<string> = []
      const tagged = (tag: string): Stage.StageFactory => (target, path) =>
        Effect.sync(() => {
          log.push(`${tag} built for ${target.provider} at ${path}`)
          return (next: Dispatch.Dispatch): Dispatch.Dispatch => (req) =>
            Effect.suspend(() => {
              log.push(`${tag} called`)
              return next(req)
            })
        })
      // given inner first: the phases decide, not the order of the list
      const dispatch = yield* compileWith([fake.adapter], twoTargets, {
        stages: [Stage.make("timeout", "inner", tagged("inner")), Stage.make("retry", "outer", tagged("outer"))]
      })
      yield* dispatch(request())
      assert.deepStrictEqual(log, [
        "outer built for first at config.targets[0]",
        "inner built for first at config.targets[0]",
        "outer built for second at config.targets[1]",
        "inner built for second at config.targets[1]",
        "outer called",
        "inner called"
      ])
    }))

  it.effect("hands stage factories the settings the leaf inherited", () =>
    Effect.gen(function*() {
      const seen: Array<number | undefined> = []
      const factory: Stage.StageFactory = (target) =>
        Effect.sync(() => {
          seen.push(target.request_timeout)
          return (next) => next
        })
      const config: ConfigNode.ConfigNode = { request_timeout: 900, ...twoTargets }
      yield* compileWith([recordingAdapter(["first", "second"]).adapter], config, {
        stages: [Stage.make("timeout", "seen", factory)]
      })
      assert.deepStrictEqual(seen, [900, 900])
    }))

  it.effect("fails the compile when a stage rejects a leaf", () =>
    Effect.gen(function*() {
      const reject: Stage.StageFactory = (_target, path) =>
        Effect.fail(new GatewayError.InvalidRequest({ message: `${path}.retry: bad`, param: `${path}.retry` }))
      const error = yield* Effect.flip(
        compileWith([recordingAdapter().adapter], { provider: "fake", api_key: "sk" }, {
          stages: [Stage.make("retry", "reject", reject)]
        })
      )
      assert.strictEqual(error.param, "config.retry")
    }))
})

describe("ConfigCompiler.layer", () => {
  const counted = (config: ConfigNode.ConfigNode) => {
    let loads = 0
    const load = Effect.sync(() => {
      loads += 1
      return config
    })
    return { load, loads: () => loads }
  }
  const withCompiler = (adapters: ReadonlyArray<ProviderRegistry.ProviderAdapter>, capacity?: number) =>
    Effect.provide(
      ConfigCompiler.ConfigCompiler.layer(capacity === undefined ? undefined : { capacity }).pipe(
        Layer.provide([
          ProviderRegistry.ProviderRegistry.layer(adapters),
          Strategy.Strategies.layerSingle,
          Stage.Stages.layer
        ])
      )
    )
  const dispatchKey = (key: string, load: ReturnType<typeof counted>["load"]) =>
    Effect.flatMap(ConfigCompiler.ConfigCompiler, (compiler) => compiler.dispatch(key, load))

  it.effect("compiles a key once over two dispatches", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      const config = counted({ provider: "fake", api_key: "sk" })
      const program = Effect.gen(function*() {
        const first = yield* dispatchKey("k", config.load)
        const second = yield* dispatchKey("k", config.load)
        yield* first(request())
        yield* second(request())
        assert.strictEqual(first, second)
      })
      yield* program.pipe(withCompiler([fake.adapter]))
      assert.strictEqual(fake.built.length, 1)
      assert.strictEqual(config.loads(), 1)
      assert.strictEqual(fake.received.length, 2)
    }))

  it.effect("compiles each distinct key", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter()
      yield* Effect.gen(function*() {
        yield* dispatchKey("a", counted({ provider: "fake", api_key: "sk-a" }).load)
        yield* dispatchKey("b", counted({ provider: "fake", api_key: "sk-b" }).load)
      }).pipe(withCompiler([fake.adapter]))
      assert.deepStrictEqual(fake.built.map((target) => target.api_key), ["sk-a", "sk-b"])
    }))

  it.effect("does not keep a config that failed to compile", () =>
    Effect.gen(function*() {
      const config = counted({ provider: "unknown", api_key: "sk" })
      const errors = yield* Effect.gen(function*() {
        const first = yield* Effect.flip(dispatchKey("k", config.load))
        const second = yield* Effect.flip(dispatchKey("k", config.load))
        return [first, second]
      }).pipe(withCompiler([recordingAdapter().adapter]))
      assert.deepStrictEqual(errors.map((error) => error.param), ["provider", "provider"])
      assert.strictEqual(config.loads(), 2)
    }))

  it.effect("does not keep a config whose load failed", () =>
    Effect.gen(function*() {
      let loads = 0
      const failing = Effect.suspend(() => {
        loads += 1
        return Effect.fail(
          new GatewayError.InvalidRequest({ message: "x-gateway-config: bad", param: "x-gateway-config" })
        )
      })
      yield* Effect.gen(function*() {
        const compiler = yield* ConfigCompiler.ConfigCompiler
        yield* Effect.flip(compiler.dispatch("k", failing))
        yield* Effect.flip(compiler.dispatch("k", failing))
      }).pipe(withCompiler([recordingAdapter().adapter]))
      assert.strictEqual(loads, 2)
    }))

  it.effect("forgets the key used least recently once over capacity", () =>
    Effect.gen(function*() {
      const a = counted({ provider: "fake", api_key: "sk-a" })
      const b = counted({ provider: "fake", api_key: "sk-b" })
      const c = counted({ provider: "fake", api_key: "sk-c" })
      yield* Effect.gen(function*() {
        yield* dispatchKey("a", a.load)
        yield* dispatchKey("b", b.load)
        yield* dispatchKey("a", a.load) // a is now the most recently used
        yield* dispatchKey("c", c.load) // evicts b
        yield* dispatchKey("a", a.load)
        yield* dispatchKey("b", b.load)
      }).pipe(withCompiler([recordingAdapter().adapter], 2))
      assert.deepStrictEqual([a.loads(), b.loads(), c.loads()], [1, 2, 1])
    }))

  it.effect("keeps one config when the capacity is below 1", () =>
    Effect.gen(function*() {
      const a = counted({ provider: "fake", api_key: "sk-a" })
      yield* Effect.gen(function*() {
        yield* dispatchKey("a", a.load)
        yield* dispatchKey("a", a.load)
      }).pipe(withCompiler([recordingAdapter().adapter], 0))
      assert.strictEqual(a.loads(), 1)
    }))

  it.effect("compiles with the registry and the stages its layer was built with", () =>
    Effect.gen(function*() {
      const fake = recordingAdapter(["first", "second"])
      let wrapped = 0
      const factory: Stage.StageFactory = () =>
        Effect.sync(() => {
          wrapped += 1
          return (next) => next
        })
      const layer = ConfigCompiler.ConfigCompiler.layer().pipe(
        Layer.provide(ProviderRegistry.ProviderRegistry.layer([fake.adapter])),
        Layer.provide(Strategy.Strategies.layerSingle),
        Layer.provide(Stage.Stages.layerOf([Stage.make("cache", "counting", factory)]))
      )
      const response = yield* dispatchKey("k", counted(twoTargets).load).pipe(
        Effect.flatMap((dispatch) => dispatch(request())),
        Effect.provide(layer)
      )
      assert.strictEqual(response.headers["x-gateway-provider"], "first")
      assert.strictEqual(wrapped, 2)
    }))
})
