import { assert, describe, it } from "@effect/vitest"
import { OtlpTraces } from "@switchyard/observability"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
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

/** A collector on 127.0.0.1 keeping each POSTed body, parsed. */
const collector = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly bodies: Array<Export>; readonly server: http.Server }>((resume) => {
    const bodies: Array<Export> = []
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1/traces`, bodies, server }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const settings = (url: string, maxBatchSize: number): OtlpTraces.Settings => ({
  url,
  headers: {},
  protocol: "http/json",
  compression: "none",
  timeoutMs: 5_000,
  serviceName: "gw-test",
  exportIntervalMs: 60_000,
  maxBatchSize,
  sampler: { parentBased: true, ratio: 1 }
})

const attributesOf = (list: ReadonlyArray<KeyValue>) =>
  Object.fromEntries(list.map((entry) => [entry.key, entry.value]))

/** Runs `spans` under an OTLP/JSON tracer, then closes it (which flushes), and gives the spans sent. */
const exported = (maxBatchSize: number, spans: Effect.Effect<unknown>) =>
  Effect.gen(function*() {
    const sink = yield* collector
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(OtlpTraces.layer(settings(sink.url, maxBatchSize)), scope)
    yield* spans.pipe(Effect.provideContext(context))
    yield* Scope.close(scope, Exit.void)
    return {
      posts: sink.bodies.length,
      resource: attributesOf(sink.bodies[0]?.resourceSpans[0]?.resource.attributes ?? []),
      spans: sink.bodies.flatMap((body) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
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
