import { assert, describe, it } from "@effect/vitest"
import { AdminKeyBootstrap, Authenticator } from "@switchyard/auth"
import { Effect, Option, Redacted } from "effect"
import { createHash } from "node:crypto"
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

const HASH_FILE = "admin-key.sha256"
const sha256Hex = (key: string) => createHash("sha256").update(key).digest("hex")

const authenticatorOf = Authenticator.Authenticator.useSync((authenticator) => authenticator)

/** A fresh directory, removed when the test's scope closes. */
const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "switchyard-auth-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
)

/** Builds the layer over `dataDir`, and returns its authenticator and the keys it announced. */
const bootstrap = (dataDir: string, adminKey?: string) =>
  Effect.gen(function*() {
    const announced: Array<string> = []
    const layer = AdminKeyBootstrap.layer({
      adminKey: adminKey === undefined ? Option.none() : Option.some(Redacted.make(adminKey)),
      dataDir,
      announce: (key) => Effect.sync(() => announced.push(key))
    })
    const authenticator = yield* Effect.provide(authenticatorOf, layer)
    return { authenticator, announced }
  })

describe("AdminKeyBootstrap.layer", () => {
  it.effect("accepts the configured admin key", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { authenticator } = yield* bootstrap(dir, "configured-key")
      assert.strictEqual((yield* authenticator.authenticate("configured-key")).keyId, "admin")
      assert.strictEqual(
        (yield* Effect.flip(authenticator.authenticate("other"))).message,
        "x-gateway-api-key: not a valid key"
      )
    }))

  it.effect("announces nothing and writes nothing when an admin key is configured", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { announced } = yield* bootstrap(dir, "configured-key")
      assert.deepStrictEqual(announced, [])
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dir)), [])
    }))

  it.effect("generates a key without one configured, announces it once and accepts it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { authenticator, announced } = yield* bootstrap(dir)
      assert.strictEqual(announced.length, 1)
      const key = announced[0] ?? ""
      assert.match(key, /^sy-admin-[A-Za-z0-9_-]{43}$/)
      assert.strictEqual((yield* authenticator.authenticate(key)).keyId, "admin")
    }))

  it.effect("stores only the SHA-256 hex of the generated key", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { announced } = yield* bootstrap(dir)
      const key = announced[0] ?? ""
      assert.deepStrictEqual(yield* Effect.promise(() => readdir(dir)), [HASH_FILE])
      const stored = yield* Effect.promise(() => readFile(join(dir, HASH_FILE), "utf8"))
      assert.strictEqual(stored, `${sha256Hex(key)}\n`)
      assert.notInclude(stored, key.slice("sy-admin-".length))
    }))

  it.effect("makes the hash file readable by its owner only", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* bootstrap(dir)
      const { mode } = yield* Effect.promise(() => stat(join(dir, HASH_FILE)))
      assert.strictEqual(mode & 0o777, 0o600)
    }))

  it.effect("generates a different key for each new data dir", () =>
    Effect.gen(function*() {
      const first = yield* bootstrap(yield* tempDir)
      const second = yield* bootstrap(yield* tempDir)
      assert.notStrictEqual(first.announced[0], second.announced[0])
    }))

  it.effect("announces nothing on a second start over the same dir and accepts the first key", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const first = yield* bootstrap(dir)
      const second = yield* bootstrap(dir)
      assert.deepStrictEqual(second.announced, [])
      assert.strictEqual((yield* second.authenticator.authenticate(first.announced[0])).keyId, "admin")
    }))

  it.effect("replaces a corrupt hash file with the hash of a new, announced key", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      yield* Effect.promise(() => writeFile(join(dir, HASH_FILE), "not a hash\n"))
      const { authenticator, announced } = yield* bootstrap(dir)
      assert.strictEqual(announced.length, 1)
      const key = announced[0] ?? ""
      assert.strictEqual(yield* Effect.promise(() => readFile(join(dir, HASH_FILE), "utf8")), `${sha256Hex(key)}\n`)
      assert.strictEqual((yield* authenticator.authenticate(key)).keyId, "admin")
    }))

  it.effect("creates a data dir that does not exist yet", () =>
    Effect.gen(function*() {
      const dir = join(yield* tempDir, "nested", "data")
      const { announced } = yield* bootstrap(dir)
      const stored = yield* Effect.promise(() => readFile(join(dir, HASH_FILE), "utf8"))
      assert.strictEqual(stored, `${sha256Hex(announced[0] ?? "")}\n`)
    }))

  it.effect("fails without announcing when the hash cannot be stored", () =>
    Effect.gen(function*() {
      const file = join(yield* tempDir, "a-file")
      yield* Effect.promise(() => writeFile(file, ""))
      const announced: Array<string> = []
      const error = yield* Effect.flip(
        Effect.provide(
          authenticatorOf,
          AdminKeyBootstrap.layer({
            adminKey: Option.none(),
            dataDir: file,
            announce: (key) => Effect.sync(() => announced.push(key))
          })
        )
      )
      assert.strictEqual(error.message, `cannot store the admin key hash in ${join(file, HASH_FILE)}`)
      assert.deepStrictEqual(announced, [])
    }))
})
