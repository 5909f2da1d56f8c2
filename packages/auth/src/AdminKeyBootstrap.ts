/**
 * The admin key of extensions.md: `GATEWAY_ADMIN_KEY` when set; otherwise one generated at the
 * first start, printed once, and kept only as its hash in the data dir.
 */
import { Effect, Layer, Option, type Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Authenticator, fromAdminKeyHash, hashKey, layerAdminKey } from "./Authenticator.ts"

const HASH_FILE = "admin-key.sha256"

/** A new admin key: 32 random bytes, base64url, with a recognisable prefix. */
export const generateKey = (): string => `sy-admin-${randomBytes(32).toString("base64url")}`

/**
 * The authenticator for this data dir. `announce` receives a generated key, the one time it
 * exists in clear.
 */
export const layer = (options: {
  readonly adminKey: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
  readonly announce: (key: string) => Effect.Effect<void>
}): Layer.Layer<Authenticator, Error> =>
  Option.match(options.adminKey, {
    onSome: layerAdminKey,
    onNone: () =>
      Layer.effect(
        Authenticator,
        Effect.gen(function*() {
          const file = join(options.dataDir, HASH_FILE)
          const stored = yield* Effect.tryPromise(() => readFile(file, "utf8")).pipe(Effect.option)
          if (Option.isSome(stored) && /^[0-9a-f]{64}$/.test(stored.value.trim())) {
            return fromAdminKeyHash(Buffer.from(stored.value.trim(), "hex"))
          }
          const key = generateKey()
          const hash = hashKey(key)
          yield* Effect.tryPromise({
            try: async () => {
              await mkdir(options.dataDir, { recursive: true })
              await writeFile(file, `${hash.toString("hex")}\n`, { mode: 0o600 })
            },
            catch: (cause) => new Error(`cannot store the admin key hash in ${file}`, { cause })
          })
          yield* options.announce(key)
          return fromAdminKeyHash(hash)
        })
      )
  })
