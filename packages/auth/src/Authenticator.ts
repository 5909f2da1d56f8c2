/**
 * Who is calling: turns the `x-gateway-api-key` credential into a Principal. A JWT goes to the
 * JWT verifier; anything else is the admin key of `GATEWAY_ADMIN_KEY` or a stored API key.
 */
import { GatewayError, type Principal } from "@switchyard/core"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { hash, timingSafeEqual } from "node:crypto"
import { ApiKeys } from "./ApiKeys.ts"
import * as JwtVerifier from "./JwtVerifier.ts"

export class Authenticator extends Context.Service<Authenticator, {
  readonly authenticate: (
    credential: string | undefined
  ) => Effect.Effect<Principal.Principal, GatewayError.Unauthorized | GatewayError.InternalError>
}>()("@switchyard/auth/Authenticator") {
  /** The admin key (when configured), stored API keys, and JWTs. */
  static readonly layer = (options: {
    readonly adminKey: Option.Option<Redacted.Redacted<string>>
  }): Layer.Layer<Authenticator, never, ApiKeys | JwtVerifier.JwtVerifier> =>
    Layer.effect(
      Authenticator,
      Effect.gen(function*() {
        const apiKeys = yield* ApiKeys
        const jwt = yield* JwtVerifier.JwtVerifier
        return make({ adminKey: options.adminKey, apiKeys, jwt })
      })
    )

  /** Only the given admin key: for embedding the pipeline without storage. */
  static readonly layerAdminKey = (adminKey: Redacted.Redacted<string>): Layer.Layer<Authenticator> =>
    Layer.succeed(Authenticator, make({ adminKey: Option.some(adminKey) }))
}

/** The workspace of the admin key and of everything created before workspaces are assigned. */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000000"

export const adminPrincipal: Principal.Principal = {
  keyId: "admin",
  workspaceId: DEFAULT_WORKSPACE_ID,
  scopes: new Set(["admin"])
}

/**
 * A key's SHA-256 as hex: compared rather than the keys, so that the comparison takes the same time
 * whatever the length of what was sent. As text, not a Buffer: the Buffer was 1 µs of a request,
 * the text 0.25.
 */
const digest = (key: string): string => hash("sha256", key)

/**
 * Two digests compared in constant time, natively: a loop over `charCodeAt` here ran fast alone,
 * but in the gateway its reads of the method missed their inline cache on every character, ~15,000
 * instructions a request (callgrind). Both are 64 hex digits: their lengths never differ.
 */
const sameDigest = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, "latin1"), Buffer.from(b, "latin1"))

const missing = new GatewayError.Unauthorized({ message: "x-gateway-api-key: missing" })
const rejected = new GatewayError.Unauthorized({ message: "x-gateway-api-key: not a valid key" })

export const make = (options: {
  readonly adminKey: Option.Option<Redacted.Redacted<string>>
  readonly apiKeys?: ApiKeys["Service"] | undefined
  readonly jwt?: JwtVerifier.JwtVerifier["Service"] | undefined
}): Authenticator["Service"] => {
  const adminDigest = Option.map(options.adminKey, (key) => digest(Redacted.value(key)))
  const { apiKeys, jwt } = options
  return Authenticator.of({
    authenticate: (credential) => {
      if (credential === undefined || credential === "") return Effect.fail(missing)
      if (jwt !== undefined && JwtVerifier.looksLikeJwt(credential)) return jwt.verify(credential)
      if (Option.isSome(adminDigest) && sameDigest(digest(credential), adminDigest.value)) {
        return Effect.succeed(adminPrincipal)
      }
      if (apiKeys === undefined) return Effect.fail(rejected)
      return Effect.flatMap(
        apiKeys.verify(credential),
        (found) => Option.match(found, { onNone: () => Effect.fail(rejected), onSome: Effect.succeed })
      )
    }
  })
}
