/** Assertions over the `Result` decoders of the package. */
import { assert } from "@effect/vitest"
import type { InvalidInput } from "@switchyard/protocol"
import { Result } from "effect"

export type Decode<A> = (input: unknown) => Result.Result<A, InvalidInput.InvalidInput>

/** Decodes and returns the value, failing the test with the decode message. */
export const accepts = <A>(decode: Decode<A>, input: unknown): A => {
  const result = decode(input)
  if (Result.isFailure(result)) {
    return assert.fail(`expected ${JSON.stringify(input)} to decode: ${result.failure.message}`)
  }
  return result.success
}

/** Asserts the failure's `param`, that the message starts with it, and that it names the rule. */
export const rejects = <A>(
  decode: Decode<A>,
  input: unknown,
  param: string | null,
  rule: string
): InvalidInput.InvalidInput => {
  const result = decode(input)
  if (Result.isSuccess(result)) return assert.fail(`expected ${JSON.stringify(input)} to be rejected (${rule})`)
  const error = result.failure
  assert.strictEqual(error.param, param, error.message)
  assert.isTrue(error.message.startsWith(`${param ?? "body"}: `), error.message)
  assert.include(error.message, rule)
  return error
}
