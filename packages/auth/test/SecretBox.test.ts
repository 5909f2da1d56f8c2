import { assert, describe, it } from "@effect/vitest"
import { SecretBox } from "@switchyard/auth"
import { Effect, Exit } from "effect"
import { randomBytes } from "node:crypto"

const key = randomBytes(32)
const credentials = { api_key: "sk-live-0123456789abcdef", cloud2_service_account_json: { private_key: "pk" } }

/** The four dot-separated parts of a sealed value, with `change` applied to the bytes of one of them. */
const withPart = (sealed: string, index: 1 | 2 | 3, change: (bytes: Buffer) => Buffer): string =>
  sealed.split(".").map((part, at) =>
    at === index ? change(Buffer.from(part, "base64url")).toString("base64url") : part
  )
    .join(".")

const flipFirstBit = (bytes: Buffer): Buffer => {
  const copy = Buffer.from(bytes)
  copy[0] = (copy[0] ?? 0) ^ 1
  return copy
}

describe("SecretBox", () => {
  it.effect("opens what it sealed, under the same key", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* SecretBox.open(key, SecretBox.seal(key, credentials)), credentials)
      assert.strictEqual(yield* SecretBox.open(key, SecretBox.seal(key, "text")), "text")
    }))

  it.effect("seals into v1.<iv>.<tag>.<ciphertext> without the plaintext in it", () =>
    Effect.sync(() => {
      const sealed = SecretBox.seal(key, credentials)
      assert.match(sealed, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/)
      assert.notInclude(sealed, credentials.api_key)
    }))

  it.effect("seals the same value differently every time (a random IV)", () =>
    Effect.sync(() => {
      const first = SecretBox.seal(key, credentials)
      const second = SecretBox.seal(key, credentials)
      assert.notStrictEqual(first, second)
      assert.notStrictEqual(first.split(".")[1], second.split(".")[1])
    }))

  it.effect("refuses to open with another key", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SecretBox.open(randomBytes(32), SecretBox.seal(key, credentials)))
      assert.instanceOf(error, SecretBox.SecretBoxError)
      assert.strictEqual(error.message, "the sealed value cannot be opened with this key")
    }))

  it.effect("refuses a changed ciphertext", () =>
    Effect.gen(function*() {
      const tampered = withPart(SecretBox.seal(key, credentials), 3, flipFirstBit)
      const error = yield* Effect.flip(SecretBox.open(key, tampered))
      assert.strictEqual(error._tag, "SecretBoxError")
    }))

  it.effect("refuses a changed authentication tag or IV", () =>
    Effect.gen(function*() {
      const sealed = SecretBox.seal(key, credentials)
      assert.strictEqual(
        (yield* Effect.flip(SecretBox.open(key, withPart(sealed, 2, flipFirstBit))))._tag,
        "SecretBoxError"
      )
      assert.strictEqual(
        (yield* Effect.flip(SecretBox.open(key, withPart(sealed, 1, flipFirstBit))))._tag,
        "SecretBoxError"
      )
    }))

  it.effect("refuses a truncated authentication tag", () =>
    Effect.gen(function*() {
      const truncated = withPart(SecretBox.seal(key, credentials), 2, (tag) => tag.subarray(0, 4))
      const opened = yield* Effect.exit(SecretBox.open(key, truncated))
      assert.isTrue(Exit.isFailure(opened), "a 4-byte prefix of the tag opened the sealed value")
    }))

  it.effect("refuses what was never sealed", () =>
    Effect.gen(function*() {
      for (const value of ["", "sk-plain-api-key", "v2.a.b.c", "v1.a.b", JSON.stringify(credentials)]) {
        const error = yield* Effect.flip(SecretBox.open(key, value))
        assert.strictEqual(error._tag, "SecretBoxError", value)
      }
      assert.strictEqual((yield* Effect.flip(SecretBox.open(key, "plain")))._tag, "SecretBoxError")
      assert.strictEqual((yield* Effect.flip(SecretBox.open(key, "plain"))).message, "not a sealed value")
    }))
})
