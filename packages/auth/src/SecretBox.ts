/**
 * Credentials at rest: a JSON value sealed with AES-256-GCM under the server secret's credential
 * key. The sealed form is `v1.<iv>.<tag>.<ciphertext>` in base64url, so the key can be rotated
 * later by version.
 */
import { Data, Effect } from "effect"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

export class SecretBoxError extends Data.TaggedError("SecretBoxError")<{ readonly message: string }> {}

export const seal = (key: Buffer, value: unknown): string => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()])
  return ["v1", iv, cipher.getAuthTag(), ciphertext].map((
    part
  ) => (typeof part === "string" ? part : part.toString("base64url"))).join(".")
}

/** The JSON value a sealed string holds; fails when it was not sealed with this key. */
export const open = (key: Buffer, sealed: string): Effect.Effect<unknown, SecretBoxError> =>
  Effect.try({
    try: () => {
      const [version, iv, tag, ciphertext] = sealed.split(".")
      if (version !== "v1" || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new SecretBoxError({ message: "not a sealed value" })
      }
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"), { authTagLength: 16 })
      decipher.setAuthTag(Buffer.from(tag, "base64url"))
      const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()])
      const value: unknown = JSON.parse(plain.toString("utf8"))
      return value
    },
    catch: (cause) =>
      cause instanceof SecretBoxError
        ? cause
        : new SecretBoxError({ message: "the sealed value cannot be opened with this key" })
  })
