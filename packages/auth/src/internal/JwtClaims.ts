/**
 * From the verified claims of a JWT to a Principal: `sub`, `workspace_id`, and the scopes of
 * `scope` (space separated) and `scopes` (array). Scopes the gateway does not know are dropped.
 */
import { GatewayError, Principal } from "@switchyard/core"
import { Option, Result, Schema } from "effect"

const knownScopes: ReadonlySet<string> = new Set(Principal.scopes)

export const isScope = (name: string): name is Principal.Scope => knownScopes.has(name)

/** A 401 whose message names the header and the reason, never the token. */
export const unauthorized = (reason: string): GatewayError.Unauthorized =>
  new GatewayError.Unauthorized({ message: `x-gateway-api-key: ${reason}` })

const decodeScopesArray = Schema.decodeUnknownOption(Schema.Array(Schema.String))

const nonEmptyString = (value: unknown): Option.Option<string> =>
  typeof value === "string" && value.trim() !== "" ? Option.some(value) : Option.none()

const scopeNames = (
  claims: Readonly<Record<string, unknown>>
): Result.Result<ReadonlyArray<string>, GatewayError.Unauthorized> => {
  const names: Array<string> = []
  if (claims.scope !== undefined) {
    if (typeof claims.scope !== "string") {
      return Result.fail(unauthorized("JWT scope claim is not a space-separated string"))
    }
    names.push(...claims.scope.split(/\s+/).filter((name) => name !== ""))
  }
  if (claims.scopes !== undefined) {
    const array = decodeScopesArray(claims.scopes)
    if (Option.isNone(array)) return Result.fail(unauthorized("JWT scopes claim is not an array of strings"))
    names.push(...array.value)
  }
  return Result.succeed(names)
}

/** The principal of a JWT whose signature and time claims were already verified. */
export const principalFromClaims = (
  claims: Readonly<Record<string, unknown>>
): Result.Result<Principal.Principal, GatewayError.Unauthorized> => {
  const sub = nonEmptyString(claims.sub)
  if (Option.isNone(sub)) return Result.fail(unauthorized("JWT lacks the sub claim"))
  const workspaceId = nonEmptyString(claims.workspace_id)
  if (Option.isNone(workspaceId)) return Result.fail(unauthorized("JWT lacks the workspace_id claim"))
  return Result.map(scopeNames(claims), (names) => ({
    keyId: `jwt:${sub.value}`,
    workspaceId: workspaceId.value,
    scopes: new Set(names.filter(isScope))
  }))
}
