import { assert, describe, it } from "@effect/vitest"
import { InvalidInput } from "@switchyard/protocol"
import { Effect, Schema } from "effect"
import { rejects } from "./support/Decode.ts"

describe("InvalidInput", () => {
  it("formats params with dots, indexes and quoted keys", () => {
    assert.strictEqual(InvalidInput.formatParam(undefined, ["messages", 0, "role"]), "messages[0].role")
    assert.strictEqual(
      InvalidInput.formatParam("config", ["targets", 1, "retry", "attempts"]),
      "config.targets[1].retry.attempts"
    )
    assert.strictEqual(InvalidInput.formatParam(undefined, ["logit_bias", "50256"]), "logit_bias[\"50256\"]")
    assert.strictEqual(InvalidInput.formatParam("config", []), "config")
    assert.strictEqual(InvalidInput.formatParam(undefined, []), null)
  })

  it("names the body when the whole input is at fault", () => {
    const decode = InvalidInput.decodeInputResult(Schema.Struct({ a: Schema.String }))
    rejects(decode, 5, null, "body: must be an object (got 5)")
  })

  it("never repeats a string input in the message", () => {
    const decode = InvalidInput.decodeInputResult(Schema.Struct({ a: Schema.Number }))
    const error = rejects(decode, { a: "sk-secret" }, "a", "must be a number (got a string)")
    assert.notInclude(error.message, "sk-secret")
  })

  it.effect("is a tagged error that can be caught by tag", () =>
    Effect.gen(function*() {
      const decode = InvalidInput.decodeInput(Schema.Struct({ a: Schema.String }))
      const caught = yield* decode({}).pipe(Effect.catchTag("InvalidInput", (error) => Effect.succeed(error.param)))
      assert.strictEqual(caught, "a")
    }))
})
