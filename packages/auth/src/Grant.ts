/**
 * What a key may hand on (extensions.md, "Authentication and scopes"): a key grants only what it
 * holds. Without this rule a key holding `keys` could mint an `admin` key and, through it, reach
 * every workspace. Only `admin` grants any scope, names another workspace, or revokes any key.
 * No key, admin or not, creates a key that outlives it.
 *
 * @example
 * ```ts
 * import { Grant } from "@switchyard/auth"
 * import { Result } from "effect"
 *
 * const caller = { keyId: "key_1", workspaceId: "ws-a", scopes: new Set(["keys", "configs"] as const) }
 * Result.isSuccess(Grant.toCreate(caller, { scopes: ["keys"] })) // true: { scopes, workspaceId: "ws-a" }
 * Grant.toCreate(caller, { scopes: ["admin"] }) // Failure: Forbidden naming "admin"
 * Grant.toCreate(caller, { scopes: ["keys"], workspace_id: "ws-b" }) // Failure: Forbidden naming "ws-b"
 * ```
 */
import { GatewayError, type Principal } from "@switchyard/core"
import { Result } from "effect"

/** What a key holds: its scopes, in its workspace. */
export interface Grant {
  readonly scopes: ReadonlyArray<Principal.Scope>
  readonly workspaceId: string
}

/** The body of `POST /v1/api-keys` as far as the rule reads it. */
export interface KeyRequest {
  readonly scopes: ReadonlyArray<Principal.Scope>
  /** Absent: the caller's own workspace. */
  readonly workspace_id?: string | undefined
  /** Unix seconds; absent or null: never. */
  readonly expires_at?: number | null | undefined
}

const isAdmin = (principal: Principal.Principal): boolean => principal.scopes.has("admin")

/** The scopes of `wanted` that `holder` does not hold, once each, in the order asked. */
export const missingScopes = (
  holder: Principal.Principal,
  wanted: ReadonlyArray<Principal.Scope>
): ReadonlyArray<Principal.Scope> =>
  isAdmin(holder) ? [] : [...new Set(wanted)].filter((scope) => !holder.scopes.has(scope))

const quoted = (scopes: ReadonlyArray<string>): string => scopes.map((scope) => `"${scope}"`).join(", ")

/**
 * Whether `grantor` may create the key `request` asks for: the grant (with the workspace filled
 * in), or Forbidden naming the workspace or the scopes it does not hold.
 */
export const toCreate = (
  grantor: Principal.Principal,
  request: KeyRequest
): Result.Result<Grant, GatewayError.Forbidden> => {
  const workspaceId = request.workspace_id ?? grantor.workspaceId
  if (workspaceId !== grantor.workspaceId && !isAdmin(grantor)) {
    return Result.fail(
      new GatewayError.Forbidden({
        message: `workspace_id: this key cannot create keys in workspace "${workspaceId}"; ` +
          "only an admin key names another workspace"
      })
    )
  }
  // every caller, admin too: an expiring credential must not outlive itself through a new key
  const expiresAt = grantor.expiresAt
  if (
    expiresAt !== undefined &&
    (request.expires_at === undefined || request.expires_at === null || request.expires_at > expiresAt)
  ) {
    return Result.fail(
      new GatewayError.Forbidden({
        message: `expires_at: this key expires at ${expiresAt} (unix seconds) and cannot create a key ` +
          `that outlives it; set expires_at to ${expiresAt} or earlier`
      })
    )
  }
  const missing = missingScopes(grantor, request.scopes)
  if (missing.length > 0) {
    return Result.fail(
      new GatewayError.Forbidden({
        message: `scopes: this key cannot grant ${quoted(missing)}: a key grants only scopes it holds`
      })
    )
  }
  return Result.succeed({ scopes: request.scopes, workspaceId })
}

/**
 * Whether `revoker` may revoke the key `target`: only in its own workspace, and (unless admin) only
 * a key that holds nothing the revoker lacks, so a lesser key cannot lock out a greater one.
 */
export const toRevoke = (
  revoker: Principal.Principal,
  target: Grant
): Result.Result<Grant, GatewayError.Forbidden> => {
  if (target.workspaceId !== revoker.workspaceId && !isAdmin(revoker)) {
    return Result.fail(
      new GatewayError.Forbidden({
        message: `this key cannot revoke keys in workspace "${target.workspaceId}"`
      })
    )
  }
  const missing = missingScopes(revoker, target.scopes)
  if (missing.length > 0) {
    return Result.fail(
      new GatewayError.Forbidden({
        message: `this key cannot revoke a key holding ${quoted(missing)}, which it does not hold itself`
      })
    )
  }
  return Result.succeed(target)
}
