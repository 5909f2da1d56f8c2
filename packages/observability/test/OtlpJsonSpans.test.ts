import { assert, describe, it } from "@effect/vitest"
import { OtlpTraces, Tracing } from "@switchyard/observability"
import { Clock, Effect, Exit, Fiber, Layer, Metric, Scope, Tracer } from "effect"
import { TestClock } from "effect/testing"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

interface KeyValue {
  readonly key: string
  readonly value: Record<string, unknown>
}
interface JsonSpan {
  readonly name: string
  readonly kind: number
  readonly spanId: string
  readonly parentSpanId?: string
  readonly attributes: ReadonlyArray<KeyValue>
  readonly status: { readonly code: number; readonly message?: string }
  readonly events?: ReadonlyArray<{ readonly name: string; readonly attributes: ReadonlyArray<KeyValue> }>
}
interface Export {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<KeyValue> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<JsonSpan> }>
  }>
}

interface Collector {
  readonly url: string
  readonly bodies: Array<Export>
  readonly server: http.Server
  /** Answers every POST held so far, and those to come, at once. */
  readonly release: () => void
  /** Waits until `count` POSTs have arrived (answered or held). */
  readonly received: (count: number) => Effect.Effect<void>
}

/** A collector's answer to one POST. */
interface Reply {
  readonly status: number
  readonly retryAfter?: string
}

/**
 * A collector on 127.0.0.1 keeping each POSTed body, parsed; with `hold`, answering none until
 * released; answering each POST with the next of `replies`, then 200.
 */
const collector = (hold = false, replies: ReadonlyArray<Reply> = []) =>
  Effect.acquireRelease(
    Effect.callback<Collector>((resume) => {
      const bodies: Array<Export> = []
      const held: Array<() => void> = []
      let holding = hold
      const waiting: Array<() => void> = []
      const server = http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
          for (const wake of waiting.splice(0)) wake()
          const reply = replies[bodies.length - 1] ?? { status: 200 }
          const headers = reply.retryAfter === undefined ? {} : { "retry-after": reply.retryAfter }
          const answer = () =>
            response.writeHead(reply.status, { "content-type": "application/json", ...headers }).end("{}")
          if (holding) held.push(answer)
          else answer()
        })
      })
      const received = (count: number): Effect.Effect<void> =>
        Effect.suspend(() =>
          bodies.length >= count ? Effect.void : Effect.andThen(
            Effect.callback<void>((wake) => {
              waiting.push(() => wake(Effect.void))
            }),
            received(count)
          )
        )
      const release = () => {
        holding = false
        for (const answer of held.splice(0)) answer()
      }
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1/traces`, bodies, server, release, received }))
      })
    }),
    ({ release, server }) =>
      Effect.callback<void>((resume) => {
        release()
        server.close(() => resume(Effect.void))
      })
  )

const settings = (
  url: string,
  maxBatchSize: number,
  queue: { readonly maxQueueSize?: number; readonly exportIntervalMs?: number } = {}
): OtlpTraces.Settings => ({
  url,
  headers: {},
  protocol: "http/json",
  compression: "none",
  timeoutMs: 5_000,
  serviceName: "gw-test",
  exportIntervalMs: queue.exportIntervalMs ?? 60_000,
  maxBatchSize,
  maxQueueSize: queue.maxQueueSize ?? 2048,
  sampler: { parentBased: true, ratio: 1 }
})

const spansOf = (bodies: ReadonlyArray<Export>) =>
  bodies.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))

const spanNamed = (name: string) => Effect.void.pipe(Effect.withSpan(name))

const dropped = (reason: "queue_full" | "export_failed") =>
  Effect.map(Metric.value(OtlpTraces.droppedSpans(reason)), (state) => state.count)

const attributesOf = (list: ReadonlyArray<KeyValue>) =>
  Object.fromEntries(list.map((entry) => [entry.key, entry.value]))

/** Runs `spans` under an OTLP/JSON tracer, then closes it (which flushes), and gives the spans sent. */
const exported = (maxBatchSize: number, spans: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const sink = yield* collector()
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(sink.url, maxBatchSize)), scope)
    yield* spans.pipe(Effect.provideContext(context))
    yield* Scope.close(scope, Exit.void)
    return {
      posts: sink.bodies.length,
      resource: attributesOf(sink.bodies[0]?.resourceSpans[0]?.resource.attributes ?? []),
      spans: spansOf(sink.bodies)
    }
  }).pipe(Effect.scoped)

describe("OtlpTraces.layer over OTLP/JSON", () => {
  it.effect("writes each span as OTLP/JSON: kind, parent, typed attributes, and the status of its exit (an exception event for a failure)", () =>
    Effect.gen(function*() {
      const { resource, spans } = yield* exported(
        512,
        Effect.gen(function*() {
          yield* Effect.void.pipe(
            Effect.withSpan("child", {
              kind: "client",
              attributes: { "a.s": "x\"y", "a.i": 3, "a.b": true, "a.d": 1.5 }
            }),
            Effect.withSpan("parent", { kind: "server" })
          )
          yield* Effect.fail(new Error("boom")).pipe(
            Effect.withSpan("failed"),
            Effect.exit
          )
          const fiber = yield* Effect.never.pipe(Effect.withSpan("interrupted"), Effect.forkChild)
          yield* Effect.yieldNow
          yield* Fiber.interrupt(fiber)
          yield* Effect.void.pipe(Effect.withSpan("non-finite", { attributes: { n: Number.NaN } }))
        })
      )
      assert.strictEqual(resource["service.name"]?.stringValue, "gw-test")
      const named = (name: string) => spans.find((span) => span.name === name)
      const child = named("child")
      const parent = named("parent")
      assert.strictEqual(child?.kind, 3)
      assert.strictEqual(parent?.kind, 2)
      assert.strictEqual(child?.parentSpanId, parent?.spanId)
      assert.isUndefined(parent?.parentSpanId)
      assert.deepStrictEqual(attributesOf(child?.attributes ?? []), {
        "a.s": { stringValue: "x\"y" },
        "a.i": { intValue: 3 },
        "a.b": { boolValue: true },
        "a.d": { doubleValue: 1.5 }
      })
      assert.deepStrictEqual(child?.status, { code: 1 })
      assert.deepStrictEqual(named("failed")?.status, { code: 2, message: "boom" })
      assert.strictEqual(named("failed")?.events?.[0]?.name, "exception")
      assert.strictEqual(named("interrupted")?.status.code, 0)
      assert.deepStrictEqual(attributesOf(named("interrupted")?.attributes ?? [])["effect.fiber.interrupted"], {
        boolValue: true
      })
      // OTLP/JSON writes a non-finite number as a string
      assert.deepStrictEqual(attributesOf(named("non-finite")?.attributes ?? [])["n"], { doubleValue: "NaN" })
    }))

  it.effect("writes any text as JSON does: escapes, non-ASCII, lone surrogates, and a value larger than a batch's buffer", () =>
    Effect.gen(function*() {
      const texts = [
        "quote \" and \\ back",
        "line\nbreak\t\u0001",
        "naïve ✓ 模型 😀",
        "lone \ud800 half",
        "y".repeat(200_000)
      ]
      const { spans } = yield* exported(
        512,
        Effect.forEach(
          texts,
          (text, i) => Effect.void.pipe(Effect.withSpan(`${i} ${text}`, { attributes: { text } })),
          {
            discard: true
          }
        )
      )
      // a lone surrogate is escaped (\ud800), so the collector reads back the very text
      assert.deepStrictEqual(spans.map((span) => span.name), texts.map((text, i) => `${i} ${text}`))
      assert.deepStrictEqual(
        spans.map((span) => attributesOf(span.attributes)["text"]),
        texts.map((text) => ({ stringValue: text }))
      )
    }))

  it.effect("writes a value seen before (kept as the whole attribute's bytes) as it wrote it the first time", () =>
    Effect.gen(function*() {
      const attributes = { model: "naïve \"q\" ✓", status: 200 }
      const { spans } = yield* exported(
        512,
        Effect.forEach(
          [1, 2, 3, 4],
          (i) => Effect.void.pipe(Effect.withSpan(`span ${i}`, { attributes })),
          { discard: true }
        )
      )
      assert.strictEqual(spans.length, 4)
      for (const span of spans) {
        assert.deepStrictEqual(attributesOf(span.attributes), {
          model: { stringValue: attributes.model },
          status: { intValue: 200 }
        })
      }
    }))

  it.effect("pads a caller's trace id shorter than 32 digits with zeros in front, and reads back each span's keys and values in a batch of many, long ones among them", () =>
    Effect.gen(function*() {
      const parent = Tracer.externalSpan({ traceId: "abc123", spanId: "00f067aa0ba902b7", sampled: true })
      const { spans } = yield* exported(
        512,
        Effect.forEach(
          [1, 2, 3],
          (i) =>
            Effect.void.pipe(
              Effect.withSpan(`span ${i}`, {
                parent,
                // "aliased" is a value before it is a key: one numbered text serves as both
                attributes: {
                  long: "l".repeat(300 + i),
                  shared: i,
                  [`own ${i}`]: `v${i}`,
                  "naïve ✓": "x",
                  alias: "aliased",
                  aliased: true
                }
              })
            ),
          { discard: true }
        )
      )
      assert.deepStrictEqual(spans.map((span) => span.name), ["span 1", "span 2", "span 3"])
      for (const [i, span] of spans.entries()) {
        assert.strictEqual((span as { readonly traceId?: string }).traceId, `${"0".repeat(26)}abc123`)
        assert.strictEqual(span.parentSpanId, "00f067aa0ba902b7")
        assert.deepStrictEqual(attributesOf(span.attributes), {
          long: { stringValue: "l".repeat(301 + i) },
          shared: { intValue: i + 1 },
          [`own ${i + 1}`]: { stringValue: `v${i + 1}` },
          "naïve ✓": { stringValue: "x" },
          alias: { stringValue: "aliased" },
          aliased: { boolValue: true }
        })
      }
    }))

  it.effect("reads back span names and string values that change under their key, alternate, return, or turn into other kinds, in one batch", () =>
    Effect.gen(function*() {
      // per span: a value new each time, one of two alternating, one that changes once, and a
      // key whose value is sometimes a number; a value written unnumbered is never read as a text
      const valuesOf = (i: number) => ({
        id: `trace-${i}-${"é".repeat(i % 3)}`,
        model: i % 2 === 0 ? "gpt-4o-mini" : "claude-haiku",
        route: i < 3 ? "POST /v1/chat/completions" : "POST /v1/embeddings",
        mixed: i % 3 === 0 ? i : `m${i % 2}`
      })
      // names that repeat, alternate and return, within a kind and across kinds
      const nameOf = (i: number) => i % 3 === 0 ? "alpha" : `beta ${i % 2}`
      const kindOf = (i: number) => i % 2 === 0 ? "client" as const : "internal" as const
      const indexes = Array.from({ length: 8 }, (_, i) => i)
      const { spans } = yield* exported(
        512,
        Effect.forEach(
          indexes,
          (i) => Effect.void.pipe(Effect.withSpan(nameOf(i), { attributes: valuesOf(i), kind: kindOf(i) })),
          { discard: true }
        )
      )
      assert.deepStrictEqual(spans.map((span) => span.name), indexes.map(nameOf))
      for (const [i, span] of spans.entries()) {
        const { id, mixed, model, route } = valuesOf(i)
        assert.deepStrictEqual(attributesOf(span.attributes), {
          id: { stringValue: id },
          model: { stringValue: model },
          route: { stringValue: route },
          mixed: typeof mixed === "number" ? { intValue: mixed } : { stringValue: mixed }
        })
      }
    }))

  it.effect("ends a request span with its attributes by position, leaving out the undefined, and a 5xx as an error", () =>
    Effect.gen(function*() {
      const layout = new Tracing.AttributeLayout(["http.route", "gen_ai.request.model", "status"])
      const values = ["/v1/chat/completions", undefined, 503]
      const { spans } = yield* exported(
        512,
        Effect.gen(function*() {
          const tracer = yield* Effect.tracer
          const clock = yield* Clock.Clock
          const sampler = { parentBased: true, ratio: 1 }
          const fresh = Tracing.startServerSpan(tracer, clock, sampler, "fresh", undefined)
          Tracing.endServerSpan(fresh, clock, 503, layout, values)
          // a span that has an attribute already: one set again keeps the value set last
          const noted = Tracing.startServerSpan(tracer, clock, sampler, "noted", undefined)
          noted.attribute("status", 0)
          noted.attribute("kept", true)
          Tracing.endServerSpan(noted, clock, 200, layout, values)
          // and a key of the layout set afterwards takes its place, the values given unchanged
          const later = Tracing.startServerSpan(tracer, clock, sampler, "later", undefined)
          Tracing.setAttributes(later, layout, values)
          later.attribute("gen_ai.request.model", "gpt-4o-mini")
          later.attribute("status", 201)
          later.end(clock.currentTimeNanosUnsafe(), Exit.void)
          // a second layout: the first one's values stay, set by key, unless the second sets them
          const twice = Tracing.startServerSpan(tracer, clock, sampler, "twice", undefined)
          Tracing.setAttributes(twice, layout, values)
          Tracing.setAttributes(twice, new Tracing.AttributeLayout(["status", "extra"]), [202, "yes"])
          twice.end(clock.currentTimeNanosUnsafe(), Exit.void)
          // other values under the same keys in the same batch
          const other = Tracing.startServerSpan(tracer, clock, sampler, "other", undefined)
          Tracing.endServerSpan(other, clock, 404, layout, ["/v1/embeddings", "text-embedding-3-small", 404])
        })
      )
      const [fresh, noted, later, twice, other] = spans
      assert.deepStrictEqual(twice?.attributes, [
        { key: "status", value: { intValue: 202 } },
        { key: "extra", value: { stringValue: "yes" } },
        { key: "http.route", value: { stringValue: "/v1/chat/completions" } }
      ])
      assert.deepStrictEqual(other?.attributes, [
        { key: "http.route", value: { stringValue: "/v1/embeddings" } },
        { key: "gen_ai.request.model", value: { stringValue: "text-embedding-3-small" } },
        { key: "status", value: { intValue: 404 } }
      ])
      assert.deepStrictEqual(fresh?.attributes, [
        { key: "http.route", value: { stringValue: "/v1/chat/completions" } },
        { key: "status", value: { intValue: 503 } }
      ])
      assert.strictEqual(fresh?.status?.code, 2)
      assert.deepStrictEqual(noted?.attributes, [
        { key: "http.route", value: { stringValue: "/v1/chat/completions" } },
        { key: "status", value: { intValue: 503 } },
        { key: "kept", value: { boolValue: true } }
      ])
      assert.strictEqual(noted?.status?.code, 1)
      assert.deepStrictEqual(later?.attributes, [
        { key: "http.route", value: { stringValue: "/v1/chat/completions" } },
        { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
        { key: "status", value: { intValue: 201 } }
      ])
      assert.deepStrictEqual(values, ["/v1/chat/completions", undefined, 503])
    }))

  it.effect("sets a layout's values one by one on another tracer's spans", () =>
    Effect.gen(function*() {
      const layout = new Tracing.AttributeLayout(["http.route", "gen_ai.request.model", "status"])
      const span = yield* Effect.makeSpan("native")
      Tracing.setAttributes(span, layout, ["/v1/embeddings", undefined, 200])
      assert.deepStrictEqual([...span.attributes], [["http.route", "/v1/embeddings"], ["status", 200]])
    }))

  it.effect("an exported span lets go of its attributes and its exit, and is written as it was before", () =>
    Effect.gen(function*() {
      let ended: Tracer.Span | undefined
      const answer = { body: "an upstream answer, large in real life" }
      const { spans } = yield* exported(
        512,
        Effect.gen(function*() {
          const tracer = yield* Effect.tracer
          const clock = yield* Clock.Clock
          const span = Tracing.startServerSpan(tracer, clock, { parentBased: true, ratio: 1 }, "attempt", undefined)
          span.attribute("gen_ai.request.model", "gpt-4o-mini")
          span.end(clock.currentTimeNanosUnsafe(), Exit.succeed(answer))
          ended = span
        })
      )
      assert.deepStrictEqual(spans[0]?.attributes, [{
        key: "gen_ai.request.model",
        value: { stringValue: "gpt-4o-mini" }
      }])
      assert.strictEqual(spans[0]?.status?.code, 1)
      // what it held is in the batch: a span that outlived a young-generation collection, still
      // referenced, would otherwise keep the answer alive through the next ones
      assert.strictEqual(ended?.attributes.size, 0)
      assert.isTrue(
        ended?.status._tag === "Ended" && Exit.isSuccess(ended.status.exit) && ended.status.exit.value === undefined
      )
    }))

  it.effect("keeps the last value of an attribute set twice, as effect's spans do", () =>
    Effect.gen(function*() {
      const { spans } = yield* exported(
        512,
        Effect.void.pipe(
          Effect.tap(() => Effect.annotateCurrentSpan("status", 503)),
          Effect.tap(() => Effect.annotateCurrentSpan("status", 200)),
          Effect.withSpan("twice", { attributes: { status: 0 } })
        )
      )
      assert.deepStrictEqual(spans[0]?.attributes, [{ key: "status", value: { intValue: 200 } }])
    }))

  it.effect("sends a full batch at once, every span of it whole", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 25 }, (_, i) => `span ${i} ✓`)
      const { posts, spans } = yield* exported(
        10,
        Effect.forEach(names, (name) => Effect.void.pipe(Effect.withSpan(name)), { discard: true })
      )
      assert.isAtLeast(posts, 3)
      assert.deepStrictEqual(spans.map((span) => span.name).sort(), [...names].sort())
    }))
})

describe("the OTLP/JSON export queue (OTEL_BSP_*)", () => {
  it.effect("sends what waits every schedule delay, and not before", () =>
    Effect.gen(function*() {
      const sink = yield* collector()
      const scope = yield* Scope.make()
      const tracing = OtlpTraces.layer(settings(sink.url, 512, { exportIntervalMs: 1_000 }))
      const context = yield* Layer.buildWithScope(tracing, scope)
      yield* Effect.forEach(["a", "b", "c"], spanNamed, { discard: true }).pipe(Effect.provideContext(context))
      yield* TestClock.adjust("999 millis")
      assert.strictEqual(sink.bodies.length, 0)
      yield* TestClock.adjust("1 millis")
      yield* sink.received(1)
      assert.deepStrictEqual(spansOf(sink.bodies).map((span) => span.name), ["a", "b", "c"])
      yield* Scope.close(scope, Exit.void)
    }).pipe(Effect.scoped))

  it.effect("drops the spans past the queue size while an export is held, counts them, and sends the rest", () =>
    Effect.gen(function*() {
      const sink = yield* collector(true)
      const scope = yield* Scope.make()
      const tracing = OtlpTraces.layer(settings(sink.url, 2, { maxQueueSize: 5 }))
      const context = yield* Layer.buildWithScope(tracing, scope)
      const traced = <A, E>(effect: Effect.Effect<A, E>) => effect.pipe(Effect.provideContext(context))
      // a full batch goes at once, and the collector holds it: one export at a time
      yield* traced(Effect.forEach(["first", "second"], spanNamed, { discard: true }))
      yield* sink.received(1)
      const names = Array.from({ length: 8 }, (_, i) => `queued ${i}`)
      yield* traced(Effect.forEach(names, spanNamed, { discard: true }))
      // five wait in the queue; the three past it are dropped as they end
      assert.strictEqual(yield* dropped("queue_full"), 3)
      sink.release()
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(spansOf(sink.bodies).map((span) => span.name), ["first", "second", ...names.slice(0, 5)])
      // batches of at most two spans
      assert.isTrue(sink.bodies.every((body) => spansOf([body]).length <= 2))
      assert.strictEqual(yield* dropped("export_failed"), 0)
    }).pipe(Effect.scoped, Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("writes a batch over the buffer of one answered, and nothing of the earlier batch stays in it", () =>
    Effect.gen(function*() {
      const sink = yield* collector()
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(sink.url, 2)), scope)
      const long = (i: number) => `a long name, longer than what follows it in the buffer: ${i}`
      const batches = [[long(1), long(2)], ["b1", "b2"], ["c1", "c2"], [long(3), long(4)], ["e1", "e2"]]
      for (const batch of batches) {
        yield* Effect.forEach(batch, spanNamed, { discard: true }).pipe(Effect.provideContext(context))
        yield* sink.received(sink.bodies.length + 1)
      }
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(sink.bodies.map((body) => spansOf([body]).map((span) => span.name)), batches)
    }).pipe(Effect.scoped))

  it.effect("drops and counts a batch whose export fails", () =>
    Effect.gen(function*() {
      const sink = yield* collector()
      const closed = sink.url.replace(/:\d+\//, ":1/")
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(closed, 512)), scope)
      yield* Effect.forEach(["lost 1", "lost 2"], spanNamed, { discard: true }).pipe(Effect.provideContext(context))
      // the shutdown's export fails on every retry (the test clock moves the retries' waits on)
      const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
      while (closing.pollUnsafe() === undefined) yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* dropped("export_failed"), 2)
    }).pipe(Effect.scoped, Effect.provideService(Metric.MetricRegistry, new Map())))
})

describe("the OTLP/JSON export's retries", () => {
  /** Moves the test clock on a second at a time until `done`, at most `seconds` times. */
  const adjustUntil = (done: () => boolean, seconds: number) =>
    Effect.gen(function*() {
      for (let i = 0; i < seconds && !done(); i++) {
        yield* TestClock.adjust("1 second")
        // the span thread answers in real time
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      }
    })

  it.effect("tries a batch answered 503 again, after the collector's Retry-After when it is longer than a second", () =>
    Effect.gen(function*() {
      const sink = yield* collector(false, [{ status: 503, retryAfter: "3" }, { status: 503 }])
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(sink.url, 2)), scope)
      yield* Effect.forEach(["a", "b"], spanNamed, { discard: true }).pipe(Effect.provideContext(context))
      yield* sink.received(1)
      // Retry-After: 3 holds the second try for three seconds, not the usual one
      yield* adjustUntil(() => sink.bodies.length > 1, 2)
      assert.strictEqual(sink.bodies.length, 1)
      yield* adjustUntil(() => sink.bodies.length > 1, 2)
      yield* sink.received(2)
      // the second 503 has no Retry-After: the third try a second later is answered 200
      yield* adjustUntil(() => sink.bodies.length > 2, 2)
      yield* sink.received(3)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(sink.bodies.map((body) => spansOf([body]).map((span) => span.name)), [
        ["a", "b"],
        ["a", "b"],
        ["a", "b"]
      ])
      assert.strictEqual(yield* dropped("export_failed"), 0)
    }).pipe(Effect.scoped, Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("drops and counts a batch answered 400 at once: the collector will not take it on another try", () =>
    Effect.gen(function*() {
      const sink = yield* collector(false, [{ status: 400 }])
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(sink.url, 2)), scope)
      yield* Effect.forEach(["refused 1", "refused 2"], spanNamed, { discard: true }).pipe(
        Effect.provideContext(context)
      )
      yield* sink.received(1)
      yield* adjustUntil(() => false, 5)
      yield* Effect.forEach(["next 1", "next 2"], spanNamed, { discard: true }).pipe(Effect.provideContext(context))
      yield* sink.received(2)
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(sink.bodies.map((body) => spansOf([body]).map((span) => span.name)), [
        ["refused 1", "refused 2"],
        ["next 1", "next 2"]
      ])
      assert.strictEqual(yield* dropped("export_failed"), 2)
    }).pipe(Effect.scoped, Effect.provideService(Metric.MetricRegistry, new Map())))
})
