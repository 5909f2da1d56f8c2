import { assert, describe, it } from "@effect/vitest"
import { type Principal, RequestContext, RequestNotes } from "@switchyard/core"
import { Effect } from "effect"

const principal: Principal.Principal = { keyId: "key-1", workspaceId: "ws-1", scopes: new Set(["completions"]) }
const pairs = (count: number) =>
  JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, "v"])))
const parseError = (raw: string) => Effect.flip(RequestContext.parseMetadata(raw))

describe("RequestContext.parseMetadata", () => {
  it.effect("parses a JSON object of string values", () =>
    Effect.gen(function*() {
      const metadata = yield* RequestContext.parseMetadata(JSON.stringify({ _user: "ada", plan: "pro" }))
      assert.deepStrictEqual(metadata, { _user: "ada", plan: "pro" })
    }))

  it.effect("keeps a __proto__ key as data", () =>
    Effect.gen(function*() {
      const metadata = yield* RequestContext.parseMetadata("{\"__proto__\":\"x\",\"plan\":\"pro\"}")
      assert.deepStrictEqual(Object.keys(metadata).sort(), ["__proto__", "plan"])
      assert.strictEqual(metadata["__proto__"], "x")
    }))

  it.effect("reads a missing or empty header as no metadata", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* RequestContext.parseMetadata(undefined), {})
      assert.deepStrictEqual(yield* RequestContext.parseMetadata(""), {})
    }))

  it.effect("accepts 16 keys", () =>
    Effect.gen(function*() {
      assert.strictEqual(Object.keys(yield* RequestContext.parseMetadata(pairs(16))).length, 16)
    }))

  it.effect("rejects text that is not JSON, naming the header", () =>
    Effect.gen(function*() {
      const error = yield* parseError("{plan: pro}")
      assert.strictEqual(error._tag, "InvalidRequest")
      assert.strictEqual(error.param, "x-gateway-metadata")
      assert.strictEqual(error.message, "x-gateway-metadata: must be a JSON object")
    }))

  it.effect("rejects a JSON array", () =>
    Effect.gen(function*() {
      const error = yield* parseError("[\"a\"]")
      assert.strictEqual(error.message, "x-gateway-metadata: must be a JSON object")
    }))

  it.effect("rejects a JSON null", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* parseError("null")).message, "x-gateway-metadata: must be a JSON object")
    }))

  it.effect("rejects a value that is not a string, naming its key", () =>
    Effect.gen(function*() {
      const error = yield* parseError(JSON.stringify({ plan: "pro", seats: 3 }))
      assert.strictEqual(error.message, "x-gateway-metadata: value of \"seats\" must be a string")
      assert.strictEqual(error.param, "x-gateway-metadata")
    }))

  it.effect("rejects 17 keys", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* parseError(pairs(17))).message, "x-gateway-metadata: at most 16 keys (got 17)")
    }))

  it.effect("accepts a 64-character key and rejects a 65-character one", () =>
    Effect.gen(function*() {
      const long = "k".repeat(64)
      assert.deepStrictEqual(yield* RequestContext.parseMetadata(JSON.stringify({ [long]: "v" })), { [long]: "v" })
      const error = yield* parseError(JSON.stringify({ [`${long}k`]: "v" }))
      assert.strictEqual(error.message, `x-gateway-metadata: key "${"k".repeat(20)}…" is longer than 64 characters`)
    }))

  it.effect("accepts a 512-character value and rejects a 513-character one", () =>
    Effect.gen(function*() {
      const value = "v".repeat(512)
      assert.deepStrictEqual(yield* RequestContext.parseMetadata(JSON.stringify({ a: value })), { a: value })
      const error = yield* parseError(JSON.stringify({ a: `${value}v` }))
      assert.strictEqual(error.message, "x-gateway-metadata: value of \"a\" is longer than 512 characters")
    }))
})

describe("RequestContext.traceIdOf", () => {
  it("uses the caller's x-gateway-trace-id", () => {
    assert.strictEqual(RequestContext.traceIdOf({ "x-gateway-trace-id": "trace-from-caller" }), "trace-from-caller")
  })

  it("generates a 32-character hex id when the header is missing", () => {
    assert.match(RequestContext.traceIdOf({}), /^[0-9a-f]{32}$/)
  })

  it("generates an id when the header is empty", () => {
    assert.match(RequestContext.traceIdOf({ "x-gateway-trace-id": "" }), /^[0-9a-f]{32}$/)
  })

  it("generates a different id for each request", () => {
    assert.notStrictEqual(RequestContext.traceIdOf({}), RequestContext.traceIdOf({}))
  })

  it("generates ids that start with the time in milliseconds, so later ids sort after earlier ones", () => {
    const before = Date.now()
    const id = RequestContext.generateTraceId()
    const after = Date.now()
    const time = Number.parseInt(id.slice(0, 12), 16)
    assert.isAtLeast(time, before)
    assert.isAtMost(time, after)
    const earlier = `${(before - 1).toString(16).padStart(12, "0")}${"f".repeat(20)}`
    assert.isTrue(earlier < id)
  })
})

describe("RequestContext.make", () => {
  it.effect("builds the context from the headers, the trace id and the principal", () =>
    Effect.gen(function*() {
      const headers = {
        "x-gateway-span-id": "span-1",
        "x-gateway-parent-span-id": "parent-1",
        "x-gateway-span-name": "checkout",
        "x-gateway-metadata": "{\"_user\":\"ada\"}"
      }
      const context = yield* RequestContext.make({ traceId: "t-1", headers, principal, receivedAt: 1_700_000_000_000 })
      assert.deepStrictEqual(context, {
        traceId: "t-1",
        spanId: "span-1",
        parentSpanId: "parent-1",
        spanName: "checkout",
        metadata: { _user: "ada" },
        principal,
        headers,
        receivedAt: 1_700_000_000_000,
        notes: {}
      })
    }))

  it.effect("keeps the recorder's notes object, where the stages note for the request's record", () =>
    Effect.gen(function*() {
      const notes: RequestNotes.RequestNotes = {}
      const context = yield* RequestContext.make({ traceId: "t-1", headers: {}, principal, receivedAt: 0, notes })
      assert.strictEqual(context.notes, notes)
      RequestNotes.noteHooks(notes, [])
      assert.isUndefined(notes.hooks)
    }))

  it.effect("generates a 16-character hex span id and leaves parent and name unset without headers", () =>
    Effect.gen(function*() {
      const context = yield* RequestContext.make({ traceId: "t-1", headers: {}, principal, receivedAt: 0 })
      assert.match(context.spanId, /^[0-9a-f]{16}$/)
      assert.isUndefined(context.parentSpanId)
      assert.isUndefined(context.spanName)
      assert.deepStrictEqual(context.metadata, {})
    }))

  it.effect("fails with InvalidRequest when the metadata header is invalid", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        RequestContext.make({ traceId: "t-1", headers: { "x-gateway-metadata": "[]" }, principal, receivedAt: 0 })
      )
      assert.strictEqual(error._tag, "InvalidRequest")
      assert.strictEqual(error.param, "x-gateway-metadata")
    }))
})
