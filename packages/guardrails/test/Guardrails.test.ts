import { assert, describe, it } from "@effect/vitest"
import { type Dispatch, GatewayError, type GatewayResponse, type ProviderTarget } from "@switchyard/core"
import { Check, Feedback, Guardrails, HookDenied, type HookResults } from "@switchyard/guardrails"
import { Effect, Fiber, Option, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { chat, fakeProvider } from "./support/Fake.ts"

/** A check that takes an hour: proves async hooks never delay the answer. */
const slow = Check.make({
  id: "test.slow",
  parameters: Schema.Struct({}),
  run: () => Effect.as(Effect.sleep("1 hour"), { verdict: false, explanation: "slept" })
})
const throws = Check.make({
  id: "test.throws",
  parameters: Schema.Struct({}),
  run: () =>
    Effect.sync(() => {
      throw new Error("boom")
    })
})

const guard = (config: Record<string, unknown>, content = "the answer", options: Guardrails.Options = {}) =>
  Effect.gen(function*() {
    const provider = fakeProvider(content)
    const factory = yield* Guardrails.make({ checks: [slow, throws], ...options })
    const target = { provider: "fake", ...config } as ProviderTarget.ProviderTarget
    const wrap = yield* factory(target, "config")
    return { ...provider, dispatch: wrap(provider.dispatch), feedback: yield* Feedback.FeedbackStore }
  }).pipe(Effect.provide(Feedback.FeedbackStore.layerMemory))

const bodyOf = (response: GatewayResponse.GatewayResponse): Record<string, unknown> => {
  if (response._tag !== "Json") throw new Error("expected JSON")
  const body = response.body()
  if (typeof body !== "object" || body === null) throw new Error("expected an object")
  return { ...body }
}

const denyInput = { input_guardrails: [{ "default.contains": { words: ["forbidden"], operator: "none" }, deny: true }] }

describe("input guardrails and before hooks", () => {
  it.effect("a denying input guardrail fails with 446 and never calls the provider", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard(denyInput)
      const error = yield* Effect.flip(dispatch(chat("this is forbidden")))
      assert.strictEqual(received.length, 0)
      assert.strictEqual(error._tag, "HookDenied")
      if (!(error instanceof HookDenied.HookDenied)) return
      assert.strictEqual(error.message, "the input checks with deny failed")
      const http = GatewayError.toHttp(error)
      assert.strictEqual(http.status, 446)
      assert.deepStrictEqual(Object.keys(http.body), ["error", "hook_results"])
      assert.isFalse((error.hookResults as HookResults.HookResults).before_request_hooks[0]?.verdict)
    }))

  it.effect("a failing check without deny lets the request through and reports it in hook_results", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard({
        before_request_hooks: [{ id: "words", checks: [{ id: "wordCount", parameters: { maxWords: 1 } }] }]
      })
      const body = bodyOf(yield* dispatch(chat("several words here")))
      assert.strictEqual(received.length, 1)
      const results = body.hook_results as HookResults.HookResults
      const hook = results.before_request_hooks[0]
      assert.strictEqual(hook?.id, "words")
      assert.isFalse(hook?.verdict)
      assert.strictEqual(hook?.checks[0]?.id, "default.wordCount")
      assert.isNumber(hook?.checks[0]?.execution_time)
      assert.strictEqual(hook?.checks[0]?.explanation, "3 words, outside [0, 1]")
    }))

  it.effect("on_fail.deny of a long-form before hook blocks", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard({
        before_request_hooks: [{
          id: "h",
          checks: [{ id: "default.regexMatch", parameters: { rule: "^ok" } }],
          on_fail: { deny: true }
        }]
      })
      yield* Effect.flip(dispatch(chat("not ok")))
      assert.strictEqual(received.length, 0)
    }))

  it.effect("a mutator rewrites the request the provider receives", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard({
        before_request_hooks: [
          { id: "redact", type: "mutator", checks: [{ id: "default.piiDetection", parameters: { redact: true } }] },
          {
            id: "mask",
            type: "mutator",
            checks: [{ id: "default.regexReplace", parameters: { rule: "secret", redactText: "***" } }]
          },
          { id: "prefix", type: "mutator", checks: [{ id: "default.addPrefix", parameters: { prefix: "Q: " } }] }
        ]
      })
      yield* dispatch(chat("mail ada@example.com my secret"))
      assert.deepStrictEqual(received[0]?.body.messages, [
        { role: "system", content: "be brief" },
        { role: "user", content: "Q: mail [REDACTED_EMAIL] my ***" }
      ])
    }))

  it.effect("a check that throws fails with its reason instead of crashing, and passes with failOnError false", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({
        before_request_hooks: [
          { id: "a", checks: [{ id: "test.throws", parameters: {} }] },
          { id: "b", checks: [{ id: "test.throws", parameters: { failOnError: false } }] }
        ]
      })
      const results = bodyOf(yield* dispatch(chat("x"))).hook_results as {
        before_request_hooks: ReadonlyArray<{ verdict: boolean; checks: ReadonlyArray<{ error?: string }> }>
      }
      assert.isFalse(results.before_request_hooks[0]?.verdict)
      assert.strictEqual(results.before_request_hooks[0]?.checks[0]?.error, "boom")
      assert.isTrue(results.before_request_hooks[1]?.verdict)
    }))

  it.effect("an unknown check is a 400 when the config is compiled", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(guard({ input_guardrails: [{ "default.nope": {} }] }))
      assert.strictEqual(error._tag, "InvalidRequest")
      assert.include(error.message, "unknown check \"default.nope\"")
    }))
})

describe("stored guardrails", () => {
  const stored: Guardrails.StoredGuardrail = {
    id: "gr-1",
    checks: [{ id: "default.contains", parameters: { words: ["bad"], operator: "none" } }],
    deny: true
  }
  const resolve: Guardrails.Resolver = (workspaceId, id) =>
    Effect.succeed(workspaceId === "ws-1" && id === "gr-1" ? Option.some(stored) : Option.none())

  it.effect("a string item runs the stored guardrail of the caller's workspace", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard({ input_guardrails: ["gr-1"] }, "x", { resolve })
      const error = yield* Effect.flip(dispatch(chat("bad")))
      assert.strictEqual(error._tag, "HookDenied")
      assert.strictEqual(received.length, 0)
    }))

  it.effect("an unknown stored guardrail is a 400", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({ input_guardrails: ["gr-2"] }, "x", { resolve })
      const error = yield* Effect.flip(dispatch(chat("fine")))
      assert.strictEqual(error._tag, "InvalidRequest")
    }))
})

describe("output guardrails and after hooks", () => {
  const denyLeak = {
    output_guardrails: [{ id: "no-leak", deny: true, "default.regexMatch": { rule: "leaked", not: true } }]
  }

  it.effect("a denying output guardrail replaces the answer with a 446 that holds none of its content", () =>
    Effect.gen(function*() {
      const { dispatch, received } = yield* guard(denyLeak, "the leaked secret")
      const error = yield* Effect.flip(dispatch(chat("hi")))
      assert.strictEqual(received.length, 1)
      if (!(error instanceof HookDenied.HookDenied)) return assert.fail(error._tag)
      const text = JSON.stringify(GatewayError.toHttp(error).body)
      assert.notInclude(text, "leaked secret")
      assert.strictEqual(error.stage, "after")
    }))

  it.effect("without deny the JSON answer carries hook_results and keeps status 200", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({
        after_request_hooks: [{ id: "short", checks: [{ id: "default.wordCount", parameters: { maxWords: 10 } }] }]
      })
      const response = yield* dispatch(chat("hi"))
      const body = bodyOf(response)
      assert.strictEqual(response.status, 200)
      // the provider's bytes are let go with their body: the edge writes the changed body
      if (response._tag === "Json") assert.strictEqual(typeof response.text(), "string")
      assert.deepInclude(body, { id: "chatcmpl-1" })
      const results = body.hook_results as { after_request_hooks: ReadonlyArray<{ id: string; verdict: boolean }> }
      assert.strictEqual(results.after_request_hooks[0]?.id, "short")
      assert.isTrue(results.after_request_hooks[0]?.verdict)
    }))

  it.effect("an output mutator rewrites the answer the client gets", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({
        after_request_hooks: [{
          id: "m",
          type: "mutator",
          checks: [{ id: "regexReplace", parameters: { rule: "answer" } }]
        }]
      })
      const body = bodyOf(yield* dispatch(chat("hi")))
      assert.deepStrictEqual(body.choices, [{
        index: 0,
        message: { role: "assistant", content: "the [REDACTED]" },
        finish_reason: "stop"
      }])
    }))

  it.effect("async after hooks never delay the answer", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({
        after_request_hooks: [{ id: "slow", async: true, checks: [{ id: "test.slow", parameters: {} }] }]
      })
      const fiber = yield* Effect.forkChild(dispatch(chat("hi")))
      // no clock time passes, yet the answer is there
      yield* TestClock.adjust("0 millis")
      const response = yield* Fiber.join(fiber)
      assert.deepStrictEqual(bodyOf(response).hook_results, { before_request_hooks: [], after_request_hooks: [] })
    }))

  it.effect("a streamed answer is held back until a denying verdict and then refused", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard(denyLeak, "the leaked secret")
      const error = yield* Effect.flip(dispatch(chat("hi", { stream: true })))
      assert.strictEqual(error._tag, "HookDenied")
    }))

  it.effect("a streamed answer that passes a denying guardrail is sent whole, rewritten by mutators", () =>
    Effect.gen(function*() {
      const { dispatch } = yield* guard({
        ...denyLeak,
        after_request_hooks: [{
          id: "m",
          type: "mutator",
          checks: [{ id: "regexReplace", parameters: { rule: "the answer", redactText: "X" } }]
        }]
      }, "is the answer here")
      const response = yield* dispatch(chat("hi", { stream: true }))
      if (response._tag !== "Stream") return assert.fail("expected a stream")
      const chunks = yield* Stream.runCollect(response.chunks)
      const text = chunks.map((chunk) => (chunk.choices as Array<{ delta: { content: string } }>)[0]?.delta.content)
        .join("")
      assert.strictEqual(text, "is X here")
    }))

  it.effect("a streamed answer without deny flows and records its feedback when complete", () =>
    Effect.gen(function*() {
      const { dispatch, feedback } = yield* guard({
        after_request_hooks: [{
          id: "count",
          checks: [{ id: "wordCount", parameters: { maxWords: 1 } }],
          on_fail: { feedback: { value: -3 } }
        }]
      }, "two words")
      const response = yield* dispatch(chat("hi", { stream: true }))
      if (response._tag !== "Stream") return assert.fail("expected a stream")
      assert.strictEqual((yield* Stream.runCollect(response.chunks)).length, 2)
      yield* TestClock.adjust("1 millis")
      const recorded = yield* feedback.list("ws-1", "trace-1")
      assert.strictEqual(recorded[0]?.value, -3)
      assert.strictEqual(recorded[0]?.hook_id, "count")
    }))
})

describe("feedback", () => {
  it.effect("on_fail and on_success feedback is recorded against the trace id", () =>
    Effect.gen(function*() {
      const { dispatch, feedback } = yield* guard({
        before_request_hooks: [
          {
            id: "pass",
            checks: [{ id: "notNull", parameters: {} }],
            on_success: { feedback: { value: 5, weight: 0.5, metadata: { why: "ok" } } }
          },
          { id: "fail", checks: [{ id: "allUppercase", parameters: {} }], on_fail: { feedback: { value: -5 } } }
        ]
      })
      yield* dispatch(chat("hello"))
      const recorded = yield* feedback.list("ws-1", "trace-1")
      assert.deepStrictEqual(recorded.map((f) => [f.hook_id, f.value, f.weight, f.metadata]), [
        ["pass", 5, 0.5, { why: "ok" }],
        ["fail", -5, 1, {}]
      ])
    }))
})

describe("Guardrails.make, the factory for core's TargetMiddleware", () => {
  it.effect("answers a denial with 446 and the envelope plus hook_results through GatewayError.toHttp", () =>
    Effect.gen(function*() {
      const provider = fakeProvider("x")
      const factory = yield* Guardrails.make()
      const wrap = yield* factory({ provider: "fake", ...denyInput } as ProviderTarget.ProviderTarget, "config")
      const dispatch: Dispatch.Dispatch = wrap(provider.dispatch)
      const http = GatewayError.toHttp(yield* Effect.flip(dispatch(chat("forbidden"))))
      assert.strictEqual(http.status, 446)
      assert.deepStrictEqual((http.body.error as { type: string }).type, "hooks_failed")
      assert.property(http.body, "hook_results")
    }).pipe(Effect.provide(Feedback.FeedbackStore.layerMemory)))
})
