/**
 * How provider credentials are kept: every provider field sealed together (AES-256-GCM under the
 * server secret), and beside them the non-secret fields plus a masked hint of each secret, which
 * is all any route ever shows.
 */
import { SecretBox, ServerSecret } from "@switchyard/auth"
import { GatewayError, type ProviderTarget } from "@switchyard/core"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Effect, Schema } from "effect"

/** The provider fields of a stored credential, as the config object names them. */
export type Credentials = Omit<ProviderTarget.ProviderTarget, "provider">

const credentialKeys = Object.keys(StoredObjectRequests.credentialFields)
const secretKeys: ReadonlySet<string> = new Set(StoredObjectRequests.secretCredentialFields)

/** The provider fields of a create body, without the object's own (slug, name, provider). */
export const credentialsOf = (body: { readonly [key: string]: unknown }): Record<string, unknown> => {
  const credentials: Record<string, unknown> = {}
  for (const key of credentialKeys) {
    if (body[key] !== undefined) credentials[key] = body[key]
  }
  return credentials
}

/** What a listing shows: non-secret fields as they are, each secret as a hint of its last characters. */
export const visibleSettings = (credentials: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const visible: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(credentials)) {
    visible[key] = secretKeys.has(key) ? mask(value) : value
  }
  return visible
}

const mask = (value: unknown): string =>
  typeof value === "string" && value.length >= 12 ? `****${value.slice(-4)}` : "****"

export const seal = (secret: ServerSecret.ServerSecret["Service"], credentials: Readonly<Record<string, unknown>>) =>
  SecretBox.seal(secret.credentialKey, credentials)

const CredentialsSchema = Schema.Struct(StoredObjectRequests.credentialFields)
const decodeCredentials = Schema.decodeUnknownEffect(CredentialsSchema)

/** Opens sealed credentials; a value that cannot be opened (wrong secret) is the gateway's own fault. */
export const open = (
  secret: ServerSecret.ServerSecret["Service"],
  sealed: string
): Effect.Effect<Credentials, GatewayError.InternalError> =>
  SecretBox.open(secret.credentialKey, sealed).pipe(
    Effect.flatMap(decodeCredentials),
    Effect.mapError(() =>
      new GatewayError.InternalError({
        message: "stored credentials cannot be opened: was GATEWAY_SECRET changed?"
      })
    )
  )
