/**
 * Who is calling: turns the `x-gateway-api-key` credential into a Principal. The first layer
 * knows one key, the admin key; stored keys and JWT verification plug in as further layers.
 */
import { GatewayError, type Principal } from "@switchyard/core"
import { Context, Effect, Layer, Redacted } from "effect"
import { hash, timingSafeEqual } from "node:crypto"

export class Authenticator extends Context.Service<Authenticator, {
  readonly authenticate: (
    credential: string | undefined
  ) => Effect.Effect<Principal.Principal, GatewayError.Unauthorized>
}>()("@switchyard/auth/Authenticator") {}

/** The workspace of the admin key and of everything created before workspaces are assigned. */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000000"

export const adminPrincipal: Principal.Principal = {
  keyId: "admin",
  workspaceId: DEFAULT_WORKSPACE_ID,
  scopes: new Set(["admin"])
}

/** SHA-256 of a key: the keys are high-entropy secrets, so a fast hash cannot be reversed. */
export const hashKey = (key: string): Buffer => hash("sha256", key, "buffer")

const missing = new GatewayError.Unauthorized({ message: "x-gateway-api-key: missing" })
const rejected = new GatewayError.Unauthorized({ message: "x-gateway-api-key: not a valid key" })

/** Accepts exactly the key whose SHA-256 is `adminKeyHash`, compared in constant time. */
export const fromAdminKeyHash = (adminKeyHash: Buffer) =>
  Authenticator.of({
    authenticate: (credential) => {
      if (credential === undefined || credential === "") return Effect.fail(missing)
      const presented = hashKey(credential)
      return presented.length === adminKeyHash.length && timingSafeEqual(presented, adminKeyHash)
        ? Effect.succeed(adminPrincipal)
        : Effect.fail(rejected)
    }
  })

/** An authenticator that knows only the given admin key. */
export const layerAdminKey = (adminKey: Redacted.Redacted<string>): Layer.Layer<Authenticator> =>
  Layer.succeed(Authenticator, fromAdminKeyHash(hashKey(Redacted.value(adminKey))))
