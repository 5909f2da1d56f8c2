import { assert, describe, it } from "@effect/vitest"
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { ConditionQuery } from "@switchyard/routing"
import { Effect } from "effect"
import { request } from "./support/Fakes.ts"

const view: ConditionQuery.RoutingView = {
  metadata: { plan: "pro", region: "eu", _user: "ada" },
  params: {
    model: "gpt-4o-mini",
    temperature: 0.2,
    max_tokens: 256,
    messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hello" }]
  },
  url: { pathname: "/v1/chat/completions" }
}

const matches = (query: GatewayRequest.JsonObject, against = view) =>
  Effect.map(ConditionQuery.compile(query, "query"), (matcher) => matcher(against))

const rejection = (query: GatewayRequest.JsonObject) =>
  Effect.flip(ConditionQuery.compile(query, "config.strategy.conditions[1].query"))

describe("ConditionQuery.compile", () => {
  it.effect("reads dotted paths into metadata, params and url, arrays included", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "metadata.plan": "pro" }))
      assert.isTrue(yield* matches({ "params.model": "gpt-4o-mini", "url.pathname": "/v1/chat/completions" }))
      assert.isTrue(yield* matches({ "params.messages.role": "user" }))
      assert.isFalse(yield* matches({ "params.messages.role": "assistant" }))
      assert.isFalse(yield* matches({ "metadata.plan": "free" }))
    }))

  it.effect("compares with $eq $ne $gt $gte $lt $lte", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "metadata.plan": { $eq: "pro" }, "metadata.region": { $ne: "us" } }))
      assert.isTrue(yield* matches({ "params.temperature": { $gt: 0.1, $lte: 0.2 } }))
      assert.isFalse(yield* matches({ "params.temperature": { $gt: 0.1, $lt: 0.2 } }))
      assert.isTrue(yield* matches({ "params.max_tokens": { $gte: 256 } }))
      assert.isFalse(yield* matches({ "params.max_tokens": { $gte: 257 } }))
    }))

  it.effect("tests membership with $in and $nin", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "metadata.plan": { $in: ["pro", "team"] } }))
      assert.isFalse(yield* matches({ "metadata.plan": { $nin: ["pro", "team"] } }))
      assert.isTrue(yield* matches({ "params.model": { $nin: ["gpt-4o"] } }))
    }))

  it.effect("tests presence with $exists", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "metadata._user": { $exists: true } }))
      assert.isTrue(yield* matches({ "metadata.team": { $exists: false } }))
      assert.isFalse(yield* matches({ "params.tools": { $exists: true } }))
    }))

  it.effect("inverts an operator expression with $not", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "params.model": { $not: { $regex: "^claude" } } }))
      assert.isFalse(yield* matches({ "params.model": { $not: { $regex: "^gpt" } } }))
      assert.isTrue(yield* matches({ "metadata.plan": { $not: { $in: ["free"] } } }))
    }))

  it.effect("requires every sibling of an $or, not only the $or", () =>
    Effect.gen(function*() {
      const either = [{ "params.model": "claude-3" }, { "metadata.region": "eu" }]
      assert.isTrue(yield* matches({ "metadata.plan": "pro", $or: either }))
      assert.isFalse(yield* matches({ "metadata.plan": "free", $or: either }))
      assert.isFalse(yield* matches({ $or: either, "metadata.plan": "free" }))
      assert.isFalse(yield* matches({ "metadata.plan": "pro", $or: [{ "params.model": "claude-3" }] }))
    }))

  it.effect("matches a pattern that backtracks catastrophically in JavaScript in linear time", () =>
    Effect.gen(function*() {
      // `(a+)+$` against 28 a's and a b takes JavaScript's engine 2^28 steps (seconds); RE2 is linear
      const against = { ...view, metadata: { plan: `${"a".repeat(28)}b` } }
      const started = performance.now()
      assert.isFalse(yield* matches({ "metadata.plan": { $regex: "(a+)+$" } }, against))
      assert.isFalse(
        yield* matches({ "metadata.plan": { $regex: "^(a|aa)+$" } }, {
          ...view,
          metadata: { plan: `${"a".repeat(500)}!` }
        })
      )
      assert.isTrue(yield* matches({ "metadata.plan": { $regex: "(a+)+b$" } }, against))
      assert.isBelow(performance.now() - started, 500)
    }))

  it.effect("reads the i, m and s flags as JavaScript does", () =>
    Effect.gen(function*() {
      const lines = { ...view, metadata: { note: "first\nSecond" } }
      assert.isTrue(yield* matches({ "metadata.note": { $regex: "^second$", $options: "im" } }, lines))
      assert.isFalse(yield* matches({ "metadata.note": { $regex: "^second$", $options: "i" } }, lines))
      assert.isTrue(yield* matches({ "metadata.note": { $regex: "first.Second", $options: "s" } }, lines))
      assert.isFalse(yield* matches({ "metadata.note": { $regex: "first.Second" } }, lines))
    }))

  it.effect("refuses a pattern RE2 cannot match in linear time, naming it", () =>
    Effect.gen(function*() {
      for (const pattern of ["(a)\\1", "foo(?=bar)", "(?<!x)y"]) {
        const error = yield* rejection({ "params.model": { $regex: pattern } })
        assert.include(error.message, "must be a regular expression RE2 accepts")
      }
    }))

  it.effect("requires every sibling of a $regex, and reads its $options", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ "params.model": { $regex: "^GPT", $options: "i" }, "metadata.plan": "pro" }))
      assert.isFalse(yield* matches({ "params.model": { $regex: "^GPT", $options: "i" }, "metadata.plan": "free" }))
      assert.isFalse(yield* matches({ "params.model": { $regex: "^GPT" } }))
      assert.isFalse(yield* matches({ "params.model": { $regex: "mini$", $ne: "gpt-4o-mini" } }))
      assert.isTrue(yield* matches({ "metadata.plan": "pro", "params.model": { $regex: "4o" }, $or: [{ "x": 1 }, {}] }))
    }))

  it.effect("requires both $and and $or when they stand side by side", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* matches({ $and: [{ "metadata.plan": "pro" }], $or: [{ "metadata.region": "us" }] }))
      assert.isTrue(yield* matches({ $and: [{ "metadata.plan": "pro" }], $or: [{ "metadata.region": "eu" }] }))
    }))

  it.effect("matches an object value by equality", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* matches({ url: { pathname: "/v1/chat/completions" } }))
      assert.isFalse(yield* matches({ metadata: { plan: "pro" } }))
    }))

  it.effect("refuses an unsupported operator, naming where it stands", () =>
    Effect.gen(function*() {
      const error = yield* rejection({ "metadata.plan": "pro", "params.n": { $size: 2 } })
      assert.instanceOf(error, GatewayError.InvalidRequest)
      assert.strictEqual(error.param, "config.strategy.conditions[1].query[\"params.n\"].$size")
      assert.include(error.message, "unsupported operator $size")
    }))

  it.effect("refuses $where, $nor and $elemMatch, which the library knows but the gateway does not offer", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* rejection({ $where: "true" })).param, "config.strategy.conditions[1].query.$where")
      assert.strictEqual((yield* rejection({ $nor: [{ a: 1 }] })).param, "config.strategy.conditions[1].query.$nor")
      const nested = yield* rejection({ $or: [{ "params.messages": { $elemMatch: { role: "user" } } }] })
      assert.strictEqual(nested.param, "config.strategy.conditions[1].query.$or[0][\"params.messages\"].$elemMatch")
    }))

  it.effect("refuses operands of the wrong shape", () =>
    Effect.gen(function*() {
      const param = (query: GatewayRequest.JsonObject) => Effect.map(rejection(query), (error) => error.param)
      const at = "config.strategy.conditions[1].query"
      assert.strictEqual(yield* param({ "metadata.plan": { $in: "pro" } }), `${at}["metadata.plan"].$in`)
      assert.strictEqual(yield* param({ "metadata.plan": { $exists: 1 } }), `${at}["metadata.plan"].$exists`)
      assert.strictEqual(yield* param({ $or: { "metadata.plan": "pro" } }), `${at}.$or`)
      assert.strictEqual(yield* param({ $and: [] }), `${at}.$and`)
      assert.strictEqual(yield* param({ $or: ["pro"] }), `${at}.$or[0]`)
      assert.strictEqual(yield* param({ "params.model": { $regex: "(" } }), `${at}["params.model"].$regex`)
      assert.strictEqual(yield* param({ "params.model": { $regex: 1 } }), `${at}["params.model"].$regex`)
      assert.strictEqual(
        yield* param({ "params.model": { $regex: "a", $options: "g" } }),
        `${at}["params.model"].$options`
      )
      assert.strictEqual(yield* param({ "params.model": { $options: "i" } }), `${at}["params.model"].$options`)
      assert.strictEqual(yield* param({ "params.model": { $not: "gpt" } }), `${at}["params.model"].$not`)
      assert.strictEqual(yield* param({ "params.model": { $eq: "a", model: "b" } }), `${at}["params.model"]`)
      assert.strictEqual(yield* param({ $not: { "metadata.plan": "pro" } }), `${at}.$not`)
    }))
})

describe("ConditionQuery.viewOf", () => {
  it("shows metadata, the body as params and the endpoint's path under /v1", () => {
    const req = request({ metadata: { plan: "pro" }, body: { model: "m", input: "x" }, endpoint: "embeddings" })
    assert.deepStrictEqual(ConditionQuery.viewOf(req), {
      metadata: { plan: "pro" },
      params: { model: "m", input: "x" },
      url: { pathname: "/v1/embeddings" }
    })
    assert.strictEqual(ConditionQuery.viewOf(request()).url.pathname, "/v1/chat/completions")
  })
})
