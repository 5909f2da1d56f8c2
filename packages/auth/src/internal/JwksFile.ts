/**
 * The JWKS file of `GATEWAY_JWKS_FILE`: read once, and decoded as a set of public keys of the
 * asymmetric algorithms the verifier accepts. Anything else stops the gateway at start-up with a
 * message naming the file and the offending member.
 */
import { Effect, Schema } from "effect"
import { readFile } from "node:fs/promises"

/** The asymmetric JWS algorithms: no `none`, no HMAC (a shared secret cannot sit in a JWKS). */
export const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA"
] as const

const Str = Schema.String
const common = {
  kid: Schema.optionalKey(Str),
  alg: Schema.optionalKey(Schema.Literals(ALGORITHMS)),
  use: Schema.optionalKey(Str),
  key_ops: Schema.optionalKey(Schema.mutable(Schema.Array(Str))),
  // Private members: a verifier must be given public keys only.
  d: Schema.optionalKey(Schema.Never),
  priv: Schema.optionalKey(Schema.Never)
}
const PublicJwk = Schema.Union([
  Schema.Struct({ kty: Schema.Literal("RSA"), n: Str, e: Str, ...common }),
  Schema.Struct({
    kty: Schema.Literal("EC"),
    crv: Schema.Literals(["P-256", "P-384", "P-521"]),
    x: Str,
    y: Str,
    ...common
  }),
  Schema.Struct({ kty: Schema.Literal("OKP"), crv: Schema.Literals(["Ed25519", "Ed448"]), x: Str, ...common })
])
const PublicJwks = Schema.fromJsonString(
  Schema.Struct({ keys: Schema.mutable(Schema.Array(PublicJwk).check(Schema.isMinLength(1))) })
)
const decodePublicJwks = Schema.decodeUnknownEffect(PublicJwks)

export type PublicJwks = typeof PublicJwks.Type

/** Fails with a message for the operator: the file, and what is wrong with it. */
export const readJwksFile = (path: string): Effect.Effect<PublicJwks, string> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (cause) =>
      `GATEWAY_JWKS_FILE ${path} cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`
  }).pipe(
    Effect.flatMap((text) =>
      decodePublicJwks(text).pipe(
        Effect.mapError((error) =>
          `GATEWAY_JWKS_FILE ${path} is not a JSON Web Key Set of public RSA, EC or OKP keys: ${error.message}`
        )
      )
    )
  )
