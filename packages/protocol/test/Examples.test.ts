import { assert, describe, it } from "@effect/vitest"
import { ReadmeExamples } from "@switchyard/fake-providers"
import { Effect } from "effect"
import { inspect } from "../examples/DecodeRequest.ts"

const messages = [{ role: "user", content: "Hi" }]
const config = { strategy: { mode: "fallback" }, targets: [{ virtual_key: "a" }, { virtual_key: "b" }] }

describe("README examples", () => {
  it("shows every example file verbatim", () => ReadmeExamples.check(new URL("..", import.meta.url)))

  it.effect("DecodeRequest: a good body and config give the model and the number of targets", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* inspect({ model: "gpt-4o", messages }, config), { model: "gpt-4o", targets: 2 })
    }))

  it.effect("DecodeRequest: a bad body gives the error body naming the field and the rule", () =>
    Effect.gen(function*() {
      const answer = yield* inspect({ model: "gpt-4o", messages, temperature: 3 }, config)
      assert.deepStrictEqual(answer, {
        error: {
          message: "temperature: must be between 0 and 2 (got 3)",
          type: "invalid_request_error",
          param: "temperature",
          code: null
        }
      })
    }))

  const errorsListed: ReadonlyArray<readonly [string, unknown, unknown]> = [
    ["top_logprobs: requires logprobs to be true", { model: "m", messages, top_logprobs: 2 }, config],
    [
      `messages[0].role: must be one of "system", "developer", "user", "assistant", "tool", "function" (got "robot")`,
      { model: "m", messages: [{ role: "robot", content: "Hi" }] },
      config
    ],
    ["config.retry.foo: unknown field", { model: "m", messages }, { ...config, retry: { attempts: 1, foo: 1 } }],
    [
      "config.strategy: conditional mode requires conditions and default",
      { model: "m", messages },
      { ...config, strategy: { mode: "conditional" } }
    ]
  ]
  for (const [message, body, withConfig] of errorsListed) {
    it.effect(`DecodeRequest: the README's error "${message}" is what a decode answers`, () =>
      Effect.gen(function*() {
        const answer = yield* inspect(body, withConfig)
        assert.strictEqual("error" in answer ? answer.error.message : undefined, message)
      }))
  }
})
