import { assert, describe, it } from "@effect/vitest"
import { type ConfigNode, type Dispatch, GatewayError, GatewayResponse, type Strategy } from "@switchyard/core"
import { FallbackStrategy } from "@switchyard/routing"
import { Effect, Stream } from "effect"
import {
  answeredBy,
  compile,
  leaf,
  openCircuits,
  optionIndexOf,
  request,
  scriptedProvider,
  timeout,
  unreachable,
  upstreamStatus
} from "./support/Fakes.ts"

const fallback = (
  targets: ReadonlyArray<ConfigNode.ConfigNode>,
  onStatusCodes?: ReadonlyArray<number>
): ConfigNode.ConfigNode => ({
  strategy: onStatusCodes === undefined ? { mode: "fallback" } : { mode: "fallback", on_status_codes: onStatusCodes },
  targets
})

const providerHeaderOf = (error: GatewayError.GatewayError) => GatewayError.toHttp(error).headers["x-gateway-provider"]

describe("fallback", () => {
  it.effect("answers with the first target when it succeeds, and calls no other", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const response = yield* (yield* compile(fallback([leaf("a"), leaf("b")]), provider))(request())
      assert.strictEqual(answeredBy(response), "a")
      assert.strictEqual(optionIndexOf(response), "config.targets[0]")
      assert.deepStrictEqual(provider.calls, ["a"])
    }))

  it.effect("tries the targets in order until one answers", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(500))
      provider.fail("b", upstreamStatus(503))
      const response = yield* (yield* compile(fallback([leaf("a"), leaf("b"), leaf("c"), leaf("d")]), provider))(
        request()
      )
      assert.strictEqual(answeredBy(response), "c")
      assert.strictEqual(optionIndexOf(response), "config.targets[2]")
      assert.deepStrictEqual(provider.calls, ["a", "b", "c"])
    }))

  it.effect("falls back by default on any upstream failure: 4xx and 5xx statuses, 502 unreachable, 408 timeout", () =>
    Effect.gen(function*() {
      for (const failure of [upstreamStatus(400), upstreamStatus(429), upstreamStatus(500), unreachable(), timeout()]) {
        const provider = scriptedProvider()
        provider.fail("a", failure)
        const response = yield* (yield* compile(fallback([leaf("a"), leaf("b")]), provider))(request())
        assert.strictEqual(answeredBy(response), "b", failure._tag)
      }
    }))

  it.effect("falls back only on the statuses in on_status_codes: a 429 not listed is returned as it is", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(429))
      const dispatch = yield* compile(fallback([leaf("a"), leaf("b")], [500, 503]), provider)
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(GatewayError.upstreamStatusOf(error), 429)
      assert.strictEqual(optionIndexOf(error), "config.targets[0]")
      assert.deepStrictEqual(provider.calls, ["a"])
    }))

  it.effect("falls back on a status listed in on_status_codes", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(503))
      const response = yield* (yield* compile(fallback([leaf("a"), leaf("b")], [429, 503]), provider))(request())
      assert.strictEqual(answeredBy(response), "b")
    }))

  it.effect("matches a connection error and a timeout by their statuses 502 and 408 in on_status_codes", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", unreachable())
      provider.fail("b", timeout())
      const listed = yield* (yield* compile(fallback([leaf("a"), leaf("c")], [502]), provider))(request())
      assert.strictEqual(answeredBy(listed), "c")
      const unlisted = yield* Effect.flip(
        (yield* compile(fallback([leaf("b"), leaf("c")], [502]), provider))(request())
      )
      assert.strictEqual(unlisted._tag, "UpstreamTimeout")
    }))

  it.effect("never falls back on the gateway's own errors such as InvalidRequest", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const invalid = new GatewayError.InvalidRequest({ message: "messages: is required", param: "messages" })
      provider.fail("a", invalid)
      const error = yield* Effect.flip((yield* compile(fallback([leaf("a"), leaf("b")]), provider))(request()))
      assert.strictEqual(error, invalid)
      assert.deepStrictEqual(provider.calls, ["a"])
    }))

  it.effect("returns the last target's failure, with its path and provider, when every target fails", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(500))
      provider.fail("b", upstreamStatus(502, "other"))
      const config = fallback([leaf("a"), leaf("b", { provider: "other" })])
      const error = yield* Effect.flip((yield* compile(config, provider))(request()))
      assert.strictEqual(GatewayError.upstreamStatusOf(error), 502)
      assert.strictEqual(optionIndexOf(error), "config.targets[1]")
      assert.strictEqual(providerHeaderOf(error), "other")
      assert.deepStrictEqual(provider.calls, ["a", "b"])
    }))

  it.effect("skips a target whose circuit is open, even when 503 is not in on_status_codes", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const dispatch = yield* compile(fallback([leaf("a"), leaf("b")], [429]), provider, [openCircuits(["a"])])
      const response = yield* dispatch(request())
      assert.strictEqual(answeredBy(response), "b")
      assert.deepStrictEqual(provider.calls, ["b"])
    }))

  it.effect("answers TargetsUnavailable (503) when every target's circuit is open", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      const dispatch = yield* compile(fallback([leaf("a"), leaf("b")]), provider, [openCircuits(["a", "b"])])
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(error._tag, "TargetsUnavailable")
      assert.strictEqual(GatewayError.toHttp(error).status, 503)
      assert.strictEqual(optionIndexOf(error), "config.targets[1]")
    }))

  it.effect("returns the last real failure when the targets after it are open", () =>
    Effect.gen(function*() {
      const provider = scriptedProvider()
      provider.fail("a", upstreamStatus(500))
      const dispatch = yield* compile(fallback([leaf("a"), leaf("b")]), provider, [openCircuits(["b"])])
      const error = yield* Effect.flip(dispatch(request()))
      assert.strictEqual(GatewayError.upstreamStatusOf(error), 500)
      assert.strictEqual(optionIndexOf(error), "config.targets[0]")
    }))

  it.effect("fails to compile with InvalidRequest when it has no targets", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(compile(fallback([]), scriptedProvider()))
      assert.strictEqual(error.param, "config.targets")
    }))

  it.effect("returns a stream once it began: a failure inside it is not fallen back from", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      // fake children that record their calls, as the compiler would hand them over
      const child = (name: string, index: number, dispatch: Dispatch.Dispatch): Strategy.CompiledTarget => ({
        path: `config.targets[${index}]`,
        node: leaf(name),
        dispatch: (req) =>
          Effect.suspend(() => {
            calls.push(name)
            return dispatch(req)
          })
      })
      const cut = GatewayResponse.stream(
        Stream.concat(Stream.make({ id: "chunk-1" }), Stream.fail(unreachable()))
      )
      const dispatch = yield* FallbackStrategy.fallback({ mode: "fallback" }, [
        child("a", 0, () => Effect.succeed(cut)),
        child("b", 1, () => Effect.succeed(GatewayResponse.json({ answeredBy: "b" })))
      ], "config")
      const response = yield* dispatch({ ...request(), stream: true })
      assert.strictEqual(response._tag, "Stream")
      if (response._tag !== "Stream") return
      const error = yield* Effect.flip(Stream.runCollect(response.chunks))
      assert.strictEqual(error._tag, "UpstreamUnreachable")
      assert.deepStrictEqual(calls, ["a"])
    }))

  describe("nested three levels deep", () => {
    // config                                  fallback
    //   targets[0]                            fallback
    //     targets[0]                          fallback
    //       targets[0] a, targets[1] b        leaves
    //     targets[1] c                        leaf
    //   targets[1] d                          leaf
    const tree = fallback([
      fallback([fallback([leaf("a"), leaf("b")]), leaf("c")]),
      leaf("d")
    ])

    it.effect("labels a success with the path of the deepest target that answered", () =>
      Effect.gen(function*() {
        const provider = scriptedProvider()
        provider.fail("a", upstreamStatus(500))
        const response = yield* (yield* compile(tree, provider))(request())
        assert.strictEqual(answeredBy(response), "b")
        assert.strictEqual(optionIndexOf(response), "config.targets[0].targets[0].targets[1]")
        assert.deepStrictEqual(provider.calls, ["a", "b"])
      }))

    it.effect("walks out of the nested strategies in order when their targets fail", () =>
      Effect.gen(function*() {
        const provider = scriptedProvider()
        for (const key of ["a", "b", "c"]) provider.fail(key, upstreamStatus(500))
        const response = yield* (yield* compile(tree, provider))(request())
        assert.strictEqual(answeredBy(response), "d")
        assert.strictEqual(optionIndexOf(response), "config.targets[1]")
        assert.deepStrictEqual(provider.calls, ["a", "b", "c", "d"])
      }))

    it.effect("labels a failure with the path of the deepest target that failed", () =>
      Effect.gen(function*() {
        const provider = scriptedProvider()
        provider.fail("a", upstreamStatus(500))
        provider.fail("b", upstreamStatus(429))
        const config = fallback([fallback([fallback([leaf("a"), leaf("b")])], [500])], [500])
        const error = yield* Effect.flip((yield* compile(config, provider))(request()))
        assert.strictEqual(GatewayError.upstreamStatusOf(error), 429)
        assert.strictEqual(optionIndexOf(error), "config.targets[0].targets[0].targets[1]")
        assert.strictEqual(providerHeaderOf(error), "fake")
      }))

    it.effect("labels a failure under a single node with the leaf's path, not the node's", () =>
      Effect.gen(function*() {
        const provider = scriptedProvider()
        provider.fail("a", upstreamStatus(500))
        const config = fallback([{ strategy: { mode: "single" }, targets: [leaf("a")] }], [500])
        const error = yield* Effect.flip((yield* compile(config, provider))(request()))
        assert.strictEqual(optionIndexOf(error), "config.targets[0].targets[0]")
      }))
  })
})

describe("fallsBackOn", () => {
  it("by default moves on for every upstream failure and for none of the gateway's own errors", () => {
    const movesOn = FallbackStrategy.fallsBackOn(undefined)
    assert.isTrue(movesOn(upstreamStatus(404)))
    assert.isTrue(movesOn(unreachable()))
    assert.isTrue(movesOn(timeout()))
    assert.isTrue(movesOn(new GatewayError.TargetsUnavailable({ message: "open" })))
    assert.isFalse(movesOn(new GatewayError.InvalidRequest({ message: "bad", param: null })))
    assert.isFalse(movesOn(new GatewayError.InternalError({ message: "bug" })))
  })

  it("with status codes moves on only for those", () => {
    const movesOn = FallbackStrategy.fallsBackOn([429])
    assert.isTrue(movesOn(upstreamStatus(429)))
    assert.isFalse(movesOn(upstreamStatus(500)))
    assert.isFalse(movesOn(new GatewayError.InvalidRequest({ message: "bad", param: null })))
  })
})
