import { ApiKeys, Authenticator, JwtVerifier, ServerSecret } from "@switchyard/auth"
import { Database } from "@switchyard/storage"
import { Effect, Layer, Option } from "effect"

// stored API keys in SQLite under dataDir, and JWTs verified as GATEWAY_JWKS_URL (or _FILE) says, when set
export const AuthLive = (dataDir: string) =>
  Authenticator.Authenticator.layer({ adminKey: Option.none() }).pipe(
    Layer.provideMerge(ApiKeys.ApiKeys.layer),
    Layer.provide([JwtVerifier.layerConfig, ServerSecret.ServerSecret.layer({ secret: Option.none(), dataDir })]),
    Layer.provide(Database.layer({ databaseUrl: Option.none(), dataDir }))
  )
// the new key's secret is shown once, as `key`; it authenticates as { keyId, workspaceId: "ws-1", scopes }
const program = Effect.gen(function*() {
  const created = yield* (yield* ApiKeys.ApiKeys).create({ name: "ci", scopes: ["completions"], workspace_id: "ws-1" })
  return yield* (yield* Authenticator.Authenticator).authenticate(created.key)
})
// README end

import type { GatewayError, Principal } from "@switchyard/core"

/** The program, typed for the test: declarations cannot name core's types through its inferred type. */
export const createAndAuthenticate: Effect.Effect<
  Principal.Principal,
  GatewayError.GatewayError,
  ApiKeys.ApiKeys | Authenticator.Authenticator
> = program
