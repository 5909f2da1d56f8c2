/**
 * A Google service account key (the JSON file the Cloud console downloads) and the OAuth access
 * token it is exchanged for. Documented rules relied on (developers.google.com/identity/protocols/
 * oauth2/service-account, "Preparing to make an authorized API call"): an RS256 JWT with claims
 * `iss` (client_email), `scope`, `aud` (token_uri), `iat` and `exp` (at most an hour later), signed
 * with `private_key`, is POSTed form-encoded to `token_uri` with
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`; the answer is
 * `{access_token, expires_in, token_type}`.
 */
import { GatewayError, type GatewayRequest } from "@switchyard/core"
import { Effect, Schema } from "effect"
import { importPKCS8, SignJWT } from "jose"

export const DEFAULT_TOKEN_URI = "https://oauth2.googleapis.com/token"
export const SCOPE = "https://www.googleapis.com/auth/cloud-platform"
/** The longest lifetime Google accepts for an assertion. */
export const ASSERTION_LIFETIME_SECONDS = 3600

const ServiceAccountJson = Schema.Struct({
  client_email: Schema.String,
  private_key: Schema.String,
  private_key_id: Schema.optionalKey(Schema.String),
  token_uri: Schema.optionalKey(Schema.String)
})

export interface ServiceAccount {
  readonly clientEmail: string
  readonly keyId: string | undefined
  readonly tokenUri: string
  /** The imported private key, ready to sign with. */
  readonly key: Awaited<ReturnType<typeof importPKCS8>>
}

const param = "cloud2_service_account_json"
const invalid = (message: string) => new GatewayError.InvalidRequest({ message: `${param}: ${message}`, param })

/** Decodes the key file and imports its private key once, when the target is compiled. */
export const fromJson = (
  json: GatewayRequest.JsonObject | undefined
): Effect.Effect<ServiceAccount, GatewayError.InvalidRequest> =>
  Effect.gen(function*() {
    if (json === undefined) return yield* invalid("provider \"vertex-ai\" needs a service account key")
    const account = yield* Schema.decodeUnknownEffect(ServiceAccountJson)(json).pipe(
      Effect.mapError(() => invalid("must hold client_email and private_key"))
    )
    const key = yield* Effect.tryPromise({
      try: () => importPKCS8(account.private_key, "RS256"),
      catch: () => invalid("private_key is not a PKCS#8 PEM RSA key")
    })
    return {
      clientEmail: account.client_email,
      keyId: account.private_key_id,
      tokenUri: account.token_uri ?? DEFAULT_TOKEN_URI,
      key
    }
  })

/** The signed JWT assertion of the grant, issued at `nowSeconds`. */
export const assertion = (account: ServiceAccount, nowSeconds: number): Effect.Effect<string> =>
  Effect.promise(() =>
    new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: "RS256", typ: "JWT", ...(account.keyId === undefined ? {} : { kid: account.keyId }) })
      .setIssuer(account.clientEmail)
      .setAudience(account.tokenUri)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + ASSERTION_LIFETIME_SECONDS)
      .sign(account.key)
  )
