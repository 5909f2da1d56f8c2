/**
 * The gateway's one secret, from which the keys that protect stored data are derived: the HMAC
 * key that hashes API keys, and the AES key that encrypts provider credentials at rest.
 * `GATEWAY_SECRET` when set (required with several replicas, which must share it); otherwise
 * 32 random bytes generated into the data dir at first start.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { hkdfSync, randomBytes } from "node:crypto"
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises"
import { join } from "node:path"

const SECRET_FILE = "secret.key"

export class ServerSecret extends Context.Service<ServerSecret, {
  /** Keys API key hashes: a leaked table without it gives no key away. */
  readonly apiKeyHmacKey: Buffer
  /** Encrypts stored credentials (AES-256-GCM). */
  readonly credentialKey: Buffer
}>()("@switchyard/auth/ServerSecret") {
  /** Keys derived from the given secret material. */
  static readonly fromSecret = (secret: Uint8Array | string) =>
    ServerSecret.of({
      apiKeyHmacKey: derive(secret, "switchyard api-key hmac v1"),
      credentialKey: derive(secret, "switchyard credential aes-256-gcm v1")
    })

  static readonly layerSecret = (secret: Uint8Array | string): Layer.Layer<ServerSecret> =>
    Layer.succeed(ServerSecret, ServerSecret.fromSecret(secret))

  /** `GATEWAY_SECRET` when given, otherwise the data dir's own secret, created when missing. */
  static readonly layer = (options: {
    readonly secret: Option.Option<Redacted.Redacted<string>>
    readonly dataDir: string
  }): Layer.Layer<ServerSecret, Error> =>
    Option.match(options.secret, {
      onSome: (secret) => ServerSecret.layerSecret(Redacted.value(secret)),
      onNone: () => Layer.effect(ServerSecret, Effect.map(loadOrCreate(options.dataDir), ServerSecret.fromSecret))
    })
}

const derive = (secret: Uint8Array | string, purpose: string): Buffer =>
  Buffer.from(hkdfSync("sha256", secret, "switchyard", purpose, 32))

const loadOrCreate = (dataDir: string): Effect.Effect<Buffer, Error> =>
  Effect.tryPromise({
    try: async () => {
      const file = join(dataDir, SECRET_FILE)
      const stored = await readFile(file, "utf8").catch(() => undefined)
      if (stored !== undefined) {
        const secret = Buffer.from(stored.trim(), "base64")
        if (secret.length !== 32) throw new Error(`${file} does not hold 32 bytes in base64`)
        return secret
      }
      const secret = randomBytes(32)
      await mkdir(dataDir, { recursive: true })
      await writeFile(file, `${secret.toString("base64")}\n`, { mode: 0o600, flag: "wx" })
      await chmod(file, 0o600)
      return secret
    },
    catch: (cause) => new Error(`cannot load or create the server secret in ${dataDir}: ${String(cause)}`, { cause })
  })
