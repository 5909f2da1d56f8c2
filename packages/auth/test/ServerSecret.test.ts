import { assert, describe, it } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import { Effect, type Layer, Option, Redacted } from "effect"
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

const secretOf = <E>(layer: Layer.Layer<ServerSecret.ServerSecret, E>) =>
  ServerSecret.ServerSecret.useSync((secret) => secret).pipe(Effect.provide(layer))

const fromDataDir = (dataDir: string) => ServerSecret.ServerSecret.layer({ secret: Option.none(), dataDir })

/** A fresh temporary directory, removed when the test's scope closes. */
const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "switchyard-secret-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

describe("ServerSecret", () => {
  describe("from GATEWAY_SECRET", () => {
    it.effect("derives the same keys from the same secret", () =>
      Effect.sync(() => {
        const first = ServerSecret.ServerSecret.fromSecret("correct horse battery staple")
        const second = ServerSecret.ServerSecret.fromSecret("correct horse battery staple")
        assert.deepStrictEqual(first.apiKeyHmacKey, second.apiKeyHmacKey)
        assert.deepStrictEqual(first.credentialKey, second.credentialKey)
      }))

    it.effect("derives a distinct 32-byte key for each purpose", () =>
      Effect.sync(() => {
        const keys = ServerSecret.ServerSecret.fromSecret("correct horse battery staple")
        assert.strictEqual(keys.apiKeyHmacKey.length, 32)
        assert.strictEqual(keys.credentialKey.length, 32)
        assert.isFalse(keys.apiKeyHmacKey.equals(keys.credentialKey))
        assert.isFalse(keys.apiKeyHmacKey.equals(Buffer.from("correct horse battery staple")))
      }))

    it.effect("derives other keys from another secret", () =>
      Effect.sync(() => {
        const first = ServerSecret.ServerSecret.fromSecret("secret one")
        const second = ServerSecret.ServerSecret.fromSecret("secret two")
        assert.isFalse(first.apiKeyHmacKey.equals(second.apiKeyHmacKey))
        assert.isFalse(first.credentialKey.equals(second.credentialKey))
      }))

    it.effect("layer uses GATEWAY_SECRET and writes nothing to the data dir", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const secret = yield* secretOf(
          ServerSecret.ServerSecret.layer({ secret: Option.some(Redacted.make("shared by replicas")), dataDir: dir })
        )
        const expected = ServerSecret.ServerSecret.fromSecret("shared by replicas")
        assert.isTrue(secret.apiKeyHmacKey.equals(expected.apiKeyHmacKey))
        assert.isTrue(secret.credentialKey.equals(expected.credentialKey))
        assert.deepStrictEqual(yield* Effect.promise(() => readdir(dir)), [])
      }))
  })

  describe("from the data dir", () => {
    it.effect("creates 32 random bytes in secret.key, readable by the owner only", () =>
      Effect.gen(function*() {
        const dir = join(yield* tempDir, "not", "there", "yet")
        yield* secretOf(fromDataDir(dir))
        const file = join(dir, "secret.key")
        const text = yield* Effect.promise(() => readFile(file, "utf8"))
        assert.strictEqual(Buffer.from(text.trim(), "base64").length, 32)
        assert.strictEqual((yield* Effect.promise(() => stat(file))).mode & 0o777, 0o600)
      }))

    it.effect("keys derived from the stored secret are those of GATEWAY_SECRET set to its bytes", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const secret = yield* secretOf(fromDataDir(dir))
        const stored = Buffer.from(
          (yield* Effect.promise(() => readFile(join(dir, "secret.key"), "utf8"))).trim(),
          "base64"
        )
        assert.isTrue(secret.apiKeyHmacKey.equals(ServerSecret.ServerSecret.fromSecret(stored).apiKeyHmacKey))
      }))

    it.effect("reuses the stored secret on the next start instead of making a new one", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const first = yield* secretOf(fromDataDir(dir))
        const written = yield* Effect.promise(() => readFile(join(dir, "secret.key"), "utf8"))
        const second = yield* secretOf(fromDataDir(dir))
        assert.isTrue(first.apiKeyHmacKey.equals(second.apiKeyHmacKey))
        assert.isTrue(first.credentialKey.equals(second.credentialKey))
        assert.strictEqual(yield* Effect.promise(() => readFile(join(dir, "secret.key"), "utf8")), written)
      }))

    it.effect("two data dirs get two different secrets", () =>
      Effect.gen(function*() {
        const first = yield* secretOf(fromDataDir(yield* tempDir))
        const second = yield* secretOf(fromDataDir(yield* tempDir))
        assert.isFalse(first.credentialKey.equals(second.credentialKey))
      }))

    it.effect("fails on a secret file that does not hold 32 bytes, and leaves it alone", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = join(dir, "secret.key")
        yield* Effect.promise(() => writeFile(file, "not a secret\n"))
        const error = yield* Effect.flip(secretOf(fromDataDir(dir)))
        assert.include(error.message, "cannot load or create the server secret")
        assert.include(error.message, "does not hold 32 bytes")
        assert.strictEqual(yield* Effect.promise(() => readFile(file, "utf8")), "not a secret\n")
      }))

    it.effect("fails on an empty secret file", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        yield* Effect.promise(() => writeFile(join(dir, "secret.key"), ""))
        const error = yield* Effect.flip(secretOf(fromDataDir(dir)))
        assert.include(error.message, "does not hold 32 bytes")
      }))

    it.effect("fails when secret.key cannot be read or written", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        yield* Effect.promise(() => mkdir(join(dir, "secret.key")))
        const error = yield* Effect.flip(secretOf(fromDataDir(dir)))
        assert.include(error.message, `cannot load or create the server secret in ${dir}`)
      }))
  })
})
