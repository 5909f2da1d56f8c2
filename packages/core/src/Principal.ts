/**
 * Who is calling: the identity an authenticator derived from `x-gateway-api-key`.
 */
import { StoredObjectRequests } from "@switchyard/protocol"

/** The scopes of extensions.md, as the wire format lists them; `admin` implies every other. */
export const scopes = StoredObjectRequests.Scope.literals

export type Scope = typeof StoredObjectRequests.Scope.Type

export interface Principal {
  /** The API key's id (never its secret), or the JWT subject. */
  readonly keyId: string
  readonly workspaceId: string
  readonly scopes: ReadonlySet<Scope>
  /**
   * When an API key stops being valid (unix seconds); absent when it never does. Such a key
   * cannot hand on more time than it has (see auth's Grant). A JWT's `exp` ends a session, not
   * the authority of its subject, and is not carried here.
   */
  readonly expiresAt?: number | undefined
}

export const hasScope = (principal: Principal, scope: Scope): boolean =>
  principal.scopes.has("admin") || principal.scopes.has(scope)

/**
 * A principal for calls made in process (a service that embeds the gateway, a batch worker):
 * who the calls are made as, in which workspace, with which scopes.
 *
 * @example
 * import { Principal } from "@switchyard/core"
 * const service = Principal.make({ keyId: "billing-service", workspaceId: "default", scopes: ["completions"] })
 */
export const make = (options: {
  readonly keyId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<Scope>
}): Principal => ({ keyId: options.keyId, workspaceId: options.workspaceId, scopes: new Set(options.scopes) })
