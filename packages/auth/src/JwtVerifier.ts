/**
 * JWT authentication of extensions.md: `x-gateway-api-key` may carry a JWT signed by a key of the
 * JWKS at `GATEWAY_JWKS_URL` (fetched and cached) or in the file `GATEWAY_JWKS_FILE` (read once).
 * The signature, `exp`, `nbf`, and `iss`/`aud` when configured are checked; the principal is
 * `jwt:<sub>` in the `workspace_id` claim's workspace, with the known scopes of `scope`/`scopes`.
 *
 * @example
 * ```ts
 * import { JwtVerifier } from "@switchyard/auth"
 * import { Effect } from "effect"
 *
 * const whoIsCalling = (credential: string) =>
 *   Effect.flatMap(JwtVerifier.JwtVerifier, (jwt) => jwt.verify(credential))
 * // { keyId: "jwt:user-1", workspaceId: "ws-1", scopes: Set { "completions" } }, or Unauthorized (401)
 * const program = whoIsCalling("eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJ1c2VyLTEifQ.c2ln").pipe(
 *   Effect.provide(JwtVerifier.layer({ jwksUrl: "https://idp.example.com/.well-known/jwks.json" }))
 * )
 * ```
 */
import type { GatewayError, Principal } from "@switchyard/core"
import { Clock, Config, Context, Data, Duration, Effect, Layer, Option, Schema } from "effect"
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JWTVerifyGetKey,
  type JWTVerifyOptions
} from "jose"
import { describeCause, isKeySelectionFailure, JwksUnavailable, rejectionOf } from "./internal/JoseFailure.ts"
import { ALGORITHMS, readJwksFile } from "./internal/JwksFile.ts"
import { principalFromClaims, unauthorized } from "./internal/JwtClaims.ts"

export class JwtVerifier extends Context.Service<JwtVerifier, {
  /** The principal of a valid JWT; any failure is a 401 whose message never contains the token. */
  readonly verify: (token: string) => Effect.Effect<Principal.Principal, GatewayError.Unauthorized>
}>()("@switchyard/auth/JwtVerifier") {}

/** The JWT settings cannot be used: both or a malformed JWKS source, an unreadable JWKS file. */
export class JwtConfigError extends Data.TaggedError("JwtConfigError")<{ readonly message: string }> {}

export interface Options {
  /** An http(s) URL serving the JWKS. Exclusive with `jwksFile`; with neither, JWTs are refused. */
  readonly jwksUrl?: string | undefined
  /** A file holding the JWKS, read once when the layer is built. */
  readonly jwksFile?: string | undefined
  /** When set, the `iss` claim must equal it. */
  readonly issuer?: string | undefined
  /** When set, the `aud` claim must be or contain it. */
  readonly audience?: string | undefined
  /** Leeway for `exp` and `nbf` against clock skew; 5 seconds by default. */
  readonly clockTolerance?: Duration.Input | undefined
  /** A remote JWKS is refetched at most this often for an unknown `kid`; 30 seconds by default. */
  readonly jwksCooldown?: Duration.Input | undefined
  /** A remote JWKS is refetched when older than this; 10 minutes by default. */
  readonly jwksCacheMaxAge?: Duration.Input | undefined
  /** How long a JWKS fetch may take; 5 seconds by default. */
  readonly jwksTimeout?: Duration.Input | undefined
}

/** Three base64url segments (the last empty for `alg: none`) whose first is a JSON header with `alg`. */
export const looksLikeJwt = (credential: string): boolean => {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential)) return false
  const header = Buffer.from(credential.slice(0, credential.indexOf(".")), "base64url").toString("utf8")
  return Option.isSome(decodeHeader(header))
}
const decodeHeader = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ alg: Schema.String })))

/** Refuses every JWT: the gateway was given neither a JWKS URL nor a JWKS file. */
export const notConfigured: typeof JwtVerifier.Service = JwtVerifier.of({
  verify: () => Effect.fail(unauthorized("JWT authentication is not configured"))
})

// The claims are checked at the time of Effect's Clock, so tests control expiry with TestClock.
const fromKeySet = (
  keys: JWTVerifyGetKey,
  source: string,
  options: Options
): typeof JwtVerifier.Service => {
  const verifyOptions = {
    algorithms: [...ALGORITHMS],
    clockTolerance: Duration.toMillis(options.clockTolerance ?? "5 seconds") / 1000,
    ...(options.issuer === undefined ? {} : { issuer: options.issuer }),
    ...(options.audience === undefined ? {} : { audience: options.audience })
  }
  return JwtVerifier.of({
    verify: (token) =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) =>
          Effect.tryPromise({
            try: () => verifyWithKeySet(token, keys, { ...verifyOptions, currentDate: new Date(now) }),
            catch: rejectionOf
          })
        ),
        Effect.tapError((rejection) =>
          rejection.log
            ? Effect.logWarning(`JWT rejected: ${rejection.reason}`).pipe(
              Effect.annotateLogs({ jwks: source, cause: describeCause(rejection.cause) })
            )
            : Effect.void
        ),
        Effect.mapError((rejection) => unauthorized(rejection.reason)),
        Effect.flatMap((verified) => Effect.fromResult(principalFromClaims(verified.payload))),
        Effect.withSpan("JwtVerifier.verify")
      )
  })
}

// A key set may hold several keys matching a header without `kid`: try each (jose's documented way).
const verifyWithKeySet = async (token: string, keys: JWTVerifyGetKey, options: JWTVerifyOptions) => {
  try {
    return await jwtVerify(token, keys, options)
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error
    for await (const key of error) {
      try {
        return await jwtVerify(token, key, options)
      } catch (attempt) {
        if (!(attempt instanceof errors.JWSSignatureVerificationFailed)) throw attempt
      }
    }
    throw new errors.JWSSignatureVerificationFailed()
  }
}

const configError = (message: string) => new JwtConfigError({ message })

const remoteKeySet = (jwksUrl: string, options: Options): Effect.Effect<JWTVerifyGetKey, JwtConfigError> =>
  Effect.try({
    try: () => {
      const url = new URL(jwksUrl)
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("not an http(s) URL")
      const remote = createRemoteJWKSet(url, {
        cooldownDuration: Duration.toMillis(options.jwksCooldown ?? "30 seconds"),
        cacheMaxAge: Duration.toMillis(options.jwksCacheMaxAge ?? "10 minutes"),
        timeoutDuration: Math.round(Duration.toMillis(options.jwksTimeout ?? "5 seconds"))
      })
      // Key-set failures (down, timeout, not a JWKS) become JwksUnavailable: 401 for the caller, a log line for us.
      const keys: JWTVerifyGetKey = async (header, token) => {
        try {
          return await remote(header, token)
        } catch (cause) {
          if (isKeySelectionFailure(cause)) throw cause
          throw new JwksUnavailable({ cause })
        }
      }
      return keys
    },
    catch: (cause) => configError(`GATEWAY_JWKS_URL cannot be used: ${describeCause(cause)}`)
  })

const localKeySet = (jwksFile: string): Effect.Effect<JWTVerifyGetKey, JwtConfigError> =>
  readJwksFile(jwksFile).pipe(
    Effect.flatMap((jwks) =>
      Effect.try({
        try: () => createLocalJWKSet(jwks),
        catch: (cause) => `GATEWAY_JWKS_FILE ${jwksFile} is not a JSON Web Key Set: ${describeCause(cause)}`
      })
    ),
    Effect.mapError(configError)
  )

// The log names the JWKS without its query string, which may carry an access token.
const withoutQuery = (url: string): string => URL.canParse(url) ? `${new URL(url).origin}${new URL(url).pathname}` : "?"

const blankToUndefined = (value: string | undefined): string | undefined =>
  value === undefined || value.trim() === "" ? undefined : value.trim()

/** The verifier for these options; fails when they name both sources, or a source that cannot be used. */
export const make = (options: Options): Effect.Effect<typeof JwtVerifier.Service, JwtConfigError> => {
  const jwksUrl = blankToUndefined(options.jwksUrl)
  const jwksFile = blankToUndefined(options.jwksFile)
  const checks = { ...options, issuer: blankToUndefined(options.issuer), audience: blankToUndefined(options.audience) }
  if (jwksUrl !== undefined && jwksFile !== undefined) {
    return Effect.fail(configError("set GATEWAY_JWKS_URL or GATEWAY_JWKS_FILE, not both"))
  }
  if (jwksUrl !== undefined) {
    return Effect.map(remoteKeySet(jwksUrl, options), (keys) => fromKeySet(keys, withoutQuery(jwksUrl), checks))
  }
  if (jwksFile !== undefined) return Effect.map(localKeySet(jwksFile), (keys) => fromKeySet(keys, jwksFile, checks))
  return Effect.succeed(notConfigured)
}

/** The verifier for the given values (tests, embedding). */
export const layer = (options: Options): Layer.Layer<JwtVerifier, JwtConfigError> =>
  Layer.effect(JwtVerifier, make(options))

const optionalString = (name: string) => Config.String(name).pipe(Config.option, Config.map(Option.getOrUndefined))

/**
 * The verifier of `GATEWAY_JWKS_URL` or `GATEWAY_JWKS_FILE`, with `GATEWAY_JWT_ISSUER` and
 * `GATEWAY_JWT_AUDIENCE`. With neither source set, every JWT is refused with a 401.
 */
export const layerConfig: Layer.Layer<JwtVerifier, JwtConfigError | Config.ConfigError> = Layer.unwrap(
  Effect.map(
    Config.all({
      jwksUrl: optionalString("GATEWAY_JWKS_URL"),
      jwksFile: optionalString("GATEWAY_JWKS_FILE"),
      issuer: optionalString("GATEWAY_JWT_ISSUER"),
      audience: optionalString("GATEWAY_JWT_AUDIENCE")
    }),
    layer
  )
)
