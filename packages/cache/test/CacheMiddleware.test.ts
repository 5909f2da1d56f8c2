import { NodeRedis } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { CacheMiddleware, CacheStore, Embedder } from "@switchyard/cache"
import { RedisCacheStore } from "@switchyard/cache/redis"
import type { GatewayRequest, GatewayResponse, ProviderTarget } from "@switchyard/core"
import { GatewayConfig } from "@switchyard/protocol"
import { Duration, Effect, Fiber, Layer, Result, Stream } from "effect"
import { Redis } from "effect/persistence"
import { TestClock } from "effect/testing"
import { randomUUID } from "node:crypto"
import * as Upstream from "./support/Upstream.ts"

const STATUS = CacheMiddleware.STATUS_HEADER

/** A leaf with `cache` behind the factory, over a counting upstream. */
const leaf = (cache: ProviderTarget.ProviderTarget["cache"], options?: CacheMiddleware.Options) =>
  Effect.gen(function*() {
    const factory = yield* CacheMiddleware.factoryWith(options)
    const upstream = new Upstream.Upstream()
    const target = cache === undefined ? { provider: "openai" } : { provider: "openai", cache }
    const middleware = yield* factory(target, "config")
    return { upstream, dispatch: middleware(upstream.dispatch) }
  })

const memory = Effect.provide(Layer.mergeAll(CacheStore.layerMemory(), Embedder.layerLocal))

const bodyOf = (response: GatewayResponse.GatewayResponse): unknown =>
  response._tag === "Json" ? response.body() : assert.fail("expected a JSON answer")

const contentOf = (response: GatewayResponse.GatewayResponse): unknown => {
  const body = bodyOf(response)
  assert.isTrue(typeof body === "object" && body !== null && "choices" in body && Array.isArray(body.choices))
  return (body as { choices: Array<{ message: { content: unknown } }> }).choices[0]?.message.content
}

const chunksOf = (response: GatewayResponse.GatewayResponse) =>
  response._tag === "Stream" ? Stream.runCollect(response.chunks) : Effect.die("expected a stream")

const simple = { mode: "simple" } as const
const semantic = { mode: "semantic" } as const

describe("CacheMiddleware", () => {
  describe("simple", () => {
    it.effect("answers an identical request from the cache without calling upstream", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        const first = yield* dispatch(Upstream.request({}))
        const second = yield* dispatch(Upstream.request({}))
        assert.strictEqual(first.headers[STATUS], "MISS")
        assert.strictEqual(second.headers[STATUS], "HIT")
        assert.strictEqual(contentOf(second), "first")
        assert.strictEqual(upstream.calls, 1)
      }).pipe(memory))

    it.effect("matches whatever the order of the body's keys", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(
          Upstream.request({ body: { model: "gpt-4o", temperature: 0.2, messages: [{ role: "user", content: "x" }] } })
        )
        const again = yield* dispatch(
          Upstream.request({ body: { messages: [{ content: "x", role: "user" }], temperature: 0.2, model: "gpt-4o" } })
        )
        assert.strictEqual(again.headers[STATUS], "HIT")
        assert.strictEqual(upstream.calls, 1)
      }).pipe(memory))

    it.effect("misses when a generation parameter differs", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(Upstream.request({ body: Upstream.ask("x", { temperature: 0.2 }) }))
        const other = yield* dispatch(Upstream.request({ body: Upstream.ask("x", { temperature: 0.3 }) }))
        assert.strictEqual(other.headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("keeps namespaces apart", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(Upstream.request({ headers: { "x-gateway-cache-namespace": "a" } }))
        const other = yield* dispatch(Upstream.request({ headers: { "x-gateway-cache-namespace": "b" } }))
        const same = yield* dispatch(Upstream.request({ headers: { "x-gateway-cache-namespace": "a" } }))
        assert.deepStrictEqual([other.headers[STATUS], same.headers[STATUS]], ["MISS", "HIT"])
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("keeps workspaces apart", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(Upstream.request({ workspace: "ws-1" }))
        const other = yield* dispatch(Upstream.request({ workspace: "ws-2" }))
        assert.strictEqual(other.headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("never serves an entry older than max_age", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf({ mode: "simple", max_age: 60 })
        yield* dispatch(Upstream.request({}))
        yield* TestClock.adjust("59 seconds")
        assert.strictEqual((yield* dispatch(Upstream.request({}))).headers[STATUS], "HIT")
        yield* TestClock.adjust("1 second")
        assert.strictEqual((yield* dispatch(Upstream.request({}))).headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("keeps entries 7 days by default", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* leaf(simple)
        yield* dispatch(Upstream.request({}))
        yield* TestClock.adjust(Duration.subtract(Duration.days(7), Duration.millis(1)))
        assert.strictEqual((yield* dispatch(Upstream.request({}))).headers[STATUS], "HIT")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual((yield* dispatch(Upstream.request({}))).headers[STATUS], "MISS")
      }).pipe(memory))

    it.effect("force refresh calls upstream and replaces the entry", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(Upstream.request({}))
        upstream.answer = { _tag: "Json", body: Upstream.completion("second") }
        const refreshed = yield* dispatch(Upstream.request({ headers: { "x-gateway-cache-force-refresh": "true" } }))
        const after = yield* dispatch(Upstream.request({}))
        assert.strictEqual(refreshed.headers[STATUS], "REFRESH")
        assert.strictEqual(contentOf(refreshed), "second")
        assert.strictEqual(after.headers[STATUS], "HIT")
        assert.strictEqual(contentOf(after), "second")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("stores only 200 answers", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.answer = { _tag: "Json", body: Upstream.completion("accepted"), status: 203 }
        yield* dispatch(Upstream.request({}))
        upstream.answer = { _tag: "Fail", status: 500 }
        yield* Effect.flip(dispatch(Upstream.request({})))
        upstream.answer = { _tag: "Json", body: Upstream.completion("ok") }
        const third = yield* dispatch(Upstream.request({}))
        assert.strictEqual(third.headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 3)
      }).pipe(memory))

    it.effect("calls upstream once for ten concurrent identical misses", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.latency = Duration.seconds(1)
        const fiber = yield* Effect.forkChild(
          Effect.all(Array.from({ length: 10 }, () => dispatch(Upstream.request({}))), { concurrency: "unbounded" })
        )
        yield* TestClock.adjust("1 second")
        const answers = yield* Fiber.join(fiber)
        assert.strictEqual(upstream.calls, 1)
        assert.deepStrictEqual(answers.map(contentOf), Array.from({ length: 10 }, () => "first"))
        assert.strictEqual(answers.filter((answer) => answer.headers[STATUS] === "MISS").length, 1)
      }).pipe(memory))

    it.effect("followers call upstream themselves when the leader's answer is not stored", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.latency = Duration.seconds(1)
        upstream.answer = { _tag: "Fail", status: 503 }
        const fiber = yield* Effect.forkChild(
          Effect.all(Array.from({ length: 3 }, () => Effect.exit(dispatch(Upstream.request({})))), {
            concurrency: "unbounded"
          })
        )
        yield* TestClock.adjust("2 seconds")
        yield* Fiber.join(fiber)
        assert.strictEqual(upstream.calls, 3)
      }).pipe(memory))

    it.effect("a leaf without cache gets no middleware and no status header", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(undefined)
        yield* dispatch(Upstream.request({}))
        const second = yield* dispatch(Upstream.request({}))
        assert.isUndefined(second.headers[STATUS])
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("max_age 0 disables the cache and says so", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf({ mode: "simple", max_age: 0 })
        yield* dispatch(Upstream.request({}))
        const second = yield* dispatch(Upstream.request({}))
        assert.strictEqual(second.headers[STATUS], "DISABLED")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    // the stage reads `cache` as the config's decode left it: its rules are checked there, once
    it("a cache config that does not decode is a 400 where the config is decoded", () => {
      const decoded = GatewayConfig.decodeResult({ provider: "openai", api_key: "sk", cache: { mode: "fuzzy" } })
      assert.isTrue(Result.isFailure(decoded) && decoded.failure.param === "config.cache.mode")
    })
  })

  describe("streams", () => {
    it.effect("replays a cached JSON answer as chunks to a streamed request", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        yield* dispatch(Upstream.request({ body: Upstream.ask("hi") }))
        const replay = yield* dispatch(
          Upstream.request({
            body: Upstream.ask("hi", { stream: true, stream_options: { include_usage: true } }),
            stream: true
          })
        )
        assert.strictEqual(replay.headers[STATUS], "HIT")
        const chunks = yield* chunksOf(replay)
        assert.strictEqual(upstream.calls, 1)
        assert.isTrue(chunks.every((chunk) => chunk.object === "chat.completion.chunk"))
        assert.deepStrictEqual(chunks.map((chunk) => chunk.choices), [
          [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          [{ index: 0, delta: { content: "first" }, finish_reason: null }],
          [{ index: 0, delta: {}, finish_reason: "stop" }],
          []
        ])
        assert.deepStrictEqual(chunks[3]?.usage, { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 })
      }).pipe(memory))

    it.effect("stores a streamed answer once it completed, and serves it as JSON", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.answer = { _tag: "Stream", chunks: Upstream.streamedChunks }
        const streamed = yield* dispatch(Upstream.request({ body: Upstream.ask("hi", { stream: true }), stream: true }))
        assert.strictEqual(streamed.headers[STATUS], "MISS")
        assert.strictEqual((yield* chunksOf(streamed)).length, Upstream.streamedChunks.length)
        const cached = yield* dispatch(Upstream.request({ body: Upstream.ask("hi") }))
        assert.strictEqual(cached.headers[STATUS], "HIT")
        assert.strictEqual(upstream.calls, 1)
        assert.deepStrictEqual(bodyOf(cached), {
          id: "chatcmpl-2",
          created: 1_700_000_000,
          model: "gpt-4o",
          object: "chat.completion",
          choices: [{
            index: 0,
            message: {
              role: "assistant",
              content: "Hello",
              tool_calls: [{
                id: "call_1",
                type: "function",
                function: { name: "get_weather", arguments: "{\"a\":1}" }
              }]
            },
            logprobs: null,
            finish_reason: "tool_calls"
          }],
          usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }
        })
      }).pipe(memory))

    it.effect("replays tool calls to a streamed request", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.answer = { _tag: "Stream", chunks: Upstream.streamedChunks }
        yield* chunksOf(yield* dispatch(Upstream.request({ body: Upstream.ask("hi"), stream: true })))
        const replay = yield* chunksOf(yield* dispatch(Upstream.request({ body: Upstream.ask("hi"), stream: true })))
        assert.deepStrictEqual(replay.map((chunk) => chunk.choices), [
          [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
          [{ index: 0, delta: { content: "Hello" }, finish_reason: null }],
          [{
            index: 0,
            delta: {
              tool_calls: [{
                index: 0,
                id: "call_1",
                type: "function",
                function: { name: "get_weather", arguments: "{\"a\":1}" }
              }]
            },
            finish_reason: null
          }],
          [{ index: 0, delta: {}, finish_reason: "tool_calls" }]
        ])
        assert.strictEqual(upstream.calls, 1)
      }).pipe(memory))

    it.effect("does not store a stream that was cut", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.answer = { _tag: "Stream", chunks: Upstream.streamedChunks, cut: true }
        const cut = yield* dispatch(Upstream.request({ stream: true }))
        yield* Effect.flip(chunksOf(cut))
        upstream.answer = { _tag: "Json", body: Upstream.completion("later") }
        const next = yield* dispatch(Upstream.request({}))
        assert.strictEqual(next.headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("does not store a stream that ended without a finish reason", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        upstream.answer = { _tag: "Stream", chunks: Upstream.streamedChunks.slice(0, 3) }
        yield* chunksOf(yield* dispatch(Upstream.request({ stream: true })))
        assert.strictEqual((yield* dispatch(Upstream.request({}))).headers[STATUS], "MISS")
      }).pipe(memory))
  })

  describe("semantic", () => {
    const base = "Please summarise the following paragraph about the history of the Roman Empire."

    it.effect("serves a near-duplicate prompt from the cache", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic)
        const first = yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        const near = yield* dispatch(
          Upstream.request({
            body: Upstream.ask("please summarize the following paragraph about the history of the roman empire")
          })
        )
        assert.strictEqual(first.headers[STATUS], "SEMANTIC MISS")
        assert.strictEqual(near.headers[STATUS], "SEMANTIC HIT")
        assert.strictEqual(upstream.calls, 1)
      }).pipe(memory))

    it.effect("answers an exact repeat with HIT", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* leaf(semantic)
        yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        assert.strictEqual((yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))).headers[STATUS], "HIT")
      }).pipe(memory))

    it.effect("misses on an unrelated prompt", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic)
        yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        const other = yield* dispatch(
          Upstream.request({ body: Upstream.ask("How do I bake sourdough bread at home?") })
        )
        assert.strictEqual(other.headers[STATUS], "SEMANTIC MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("needs every other parameter to match exactly", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic)
        yield* dispatch(Upstream.request({ body: Upstream.ask(base, { temperature: 0 }) }))
        const other = yield* dispatch(Upstream.request({ body: Upstream.ask(`${base}!`, { temperature: 1 }) }))
        assert.strictEqual(other.headers[STATUS], "SEMANTIC MISS")
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("honours a configured threshold", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic, { threshold: 0.85 })
        yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        const looser = yield* dispatch(
          Upstream.request({
            body: Upstream.ask("Please summarise this paragraph about the history of the Roman Empire.")
          })
        )
        assert.strictEqual(looser.headers[STATUS], "SEMANTIC HIT")
        assert.strictEqual(upstream.calls, 1)
      }).pipe(memory))

    it.effect("matches requests with tools exactly", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic)
        const tools = { tools: [{ type: "function", function: { name: "f", parameters: {} } }] }
        const first = yield* dispatch(Upstream.request({ body: Upstream.ask(base, tools) }))
        const near = yield* dispatch(Upstream.request({ body: Upstream.ask(`${base}!!`, tools) }))
        const exact = yield* dispatch(Upstream.request({ body: Upstream.ask(base, tools) }))
        assert.deepStrictEqual([first.headers[STATUS], near.headers[STATUS], exact.headers[STATUS]], [
          "MISS",
          "MISS",
          "HIT"
        ])
        assert.strictEqual(upstream.calls, 2)
      }).pipe(memory))

    it.effect("matches long conversations exactly", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* leaf(semantic)
        const turns = (last: string): GatewayRequest.JsonObject => ({
          model: "gpt-4o",
          messages: [
            { role: "user", content: "a" },
            { role: "assistant", content: "b" },
            { role: "user", content: "c" },
            { role: "assistant", content: "d" },
            { role: "user", content: last }
          ]
        })
        yield* dispatch(Upstream.request({ body: turns(base) }))
        const near = yield* dispatch(Upstream.request({ body: turns(`${base}!`) }))
        assert.strictEqual(near.headers[STATUS], "MISS")
      }).pipe(memory))

    it.effect("never serves an expired semantic match", () =>
      Effect.gen(function*() {
        const { dispatch } = yield* leaf({ mode: "semantic", max_age: 10 })
        yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        yield* TestClock.adjust("10 seconds")
        const near = yield* dispatch(Upstream.request({ body: Upstream.ask(`${base}!`) }))
        assert.strictEqual(near.headers[STATUS], "SEMANTIC MISS")
      }).pipe(memory))

    it.effect("falls back to exact matching when the embedder fails", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(semantic)
        yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        const again = yield* dispatch(Upstream.request({ body: Upstream.ask(base) }))
        assert.deepStrictEqual([again.headers[STATUS], upstream.calls], ["HIT", 1])
      }).pipe(Effect.provide(Layer.mergeAll(
        CacheStore.layerMemory(),
        Embedder.layerRemote({ id: "down", embed: () => Effect.fail(new Error("connection refused")) })
      ))))
  })

  describe("store failures", () => {
    const broken = Layer.succeed(
      CacheStore.CacheStore,
      CacheStore.CacheStore.of({
        get: () => Effect.fail(new CacheStore.CacheStoreError({ message: "down" })),
        set: () => Effect.fail(new CacheStore.CacheStoreError({ message: "down" })),
        append: () => Effect.fail(new CacheStore.CacheStoreError({ message: "down" })),
        readFrom: () => Effect.fail(new CacheStore.CacheStoreError({ message: "down" }))
      })
    )

    it.effect("a store that fails is a miss, never a failed request", () =>
      Effect.gen(function*() {
        for (const mode of [simple, semantic]) {
          const { dispatch, upstream } = yield* leaf(mode)
          const first = yield* dispatch(Upstream.request({}))
          const second = yield* dispatch(Upstream.request({}))
          assert.strictEqual(contentOf(second), "first")
          assert.deepStrictEqual([first.headers[STATUS], second.headers[STATUS]].map((s) => s?.endsWith("MISS")), [
            true,
            true
          ])
          assert.strictEqual(upstream.calls, 2)
        }
      }).pipe(Effect.provide(Layer.mergeAll(broken, Embedder.layerLocal))))
  })

  describe("memory store", () => {
    it.effect("evicts the least recently used answer beyond its capacity", () =>
      Effect.gen(function*() {
        const { dispatch, upstream } = yield* leaf(simple)
        const ask = (text: string) => dispatch(Upstream.request({ body: Upstream.ask(text) }))
        yield* ask("a")
        yield* ask("b")
        yield* ask("a")
        yield* ask("c")
        assert.strictEqual((yield* ask("a")).headers[STATUS], "HIT")
        assert.strictEqual((yield* ask("b")).headers[STATUS], "MISS")
        assert.strictEqual(upstream.calls, 4)
      }).pipe(Effect.provide(Layer.mergeAll(CacheStore.layerMemory({ capacity: 2 }), Embedder.layerLocal))))
  })

  describe("in Redis (the real server on 127.0.0.1:6379)", () => {
    const url = "redis://127.0.0.1:6379"

    /** A prefix unique to this run; its keys are deleted when the test ends. */
    const freshPrefix = Effect.gen(function*() {
      const prefix = `switchyard-test:cache:${randomUUID()}:`
      const context = yield* Layer.build(NodeRedis.layer({ url }))
      const redis = yield* Effect.provideContext(Redis.Redis, context)
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          const keys = yield* redis.send<ReadonlyArray<string>>("KEYS", `${prefix}*`)
          if (keys.length > 0) yield* redis.send("DEL", ...keys)
        }).pipe(Effect.orDie)
      )
      return prefix
    })

    /** One gateway process: its own connection, store, index and flights. */
    const process = (prefix: string, cache: ProviderTarget.ProviderTarget["cache"]) =>
      Effect.gen(function*() {
        const context = yield* Layer.build(Layer.mergeAll(RedisCacheStore.layer({ url, prefix }), Embedder.layerLocal))
        return yield* leaf(cache).pipe(Effect.provideContext(context))
      })

    it.live("two processes share entries", () =>
      Effect.gen(function*() {
        const prefix = yield* freshPrefix
        const one = yield* process(prefix, simple)
        const two = yield* process(prefix, simple)
        yield* one.dispatch(Upstream.request({}))
        const shared = yield* two.dispatch(Upstream.request({}))
        assert.strictEqual(shared.headers[STATUS], "HIT")
        assert.strictEqual(contentOf(shared), "first")
        assert.deepStrictEqual([one.upstream.calls, two.upstream.calls], [1, 0])
      }).pipe(Effect.scoped))

    it.live("two processes share semantic entries", () =>
      Effect.gen(function*() {
        const prefix = yield* freshPrefix
        const base = "Please summarise the following paragraph about the history of the Roman Empire."
        const one = yield* process(prefix, semantic)
        const two = yield* process(prefix, semantic)
        yield* one.dispatch(Upstream.request({ body: Upstream.ask(base) }))
        const near = yield* two.dispatch(Upstream.request({ body: Upstream.ask(`${base.toUpperCase()}!`) }))
        assert.strictEqual(near.headers[STATUS], "SEMANTIC HIT")
        assert.strictEqual(two.upstream.calls, 0)
      }).pipe(Effect.scoped))

    it.live("entries expire in Redis after max_age", () =>
      Effect.gen(function*() {
        const prefix = yield* freshPrefix
        const one = yield* process(prefix, { mode: "simple", max_age: 1 })
        yield* one.dispatch(Upstream.request({}))
        yield* Effect.sleep("1100 millis")
        assert.strictEqual((yield* one.dispatch(Upstream.request({}))).headers[STATUS], "MISS")
      }).pipe(Effect.scoped))
  })
})
