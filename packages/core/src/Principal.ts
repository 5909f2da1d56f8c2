/**
 * Who is calling: the identity an authenticator derived from `x-gateway-api-key`.
 */

/** The scopes of extensions.md; `admin` implies every other. */
export const scopes = [
  "admin",
  "completions",
  "prompts.read",
  "prompts.write",
  "assistants",
  "files",
  "batches",
  "policies.read",
  "policies.write",
  "configs",
  "keys",
  "logs.read"
] as const

export type Scope = (typeof scopes)[number]

export interface Principal {
  /** The API key's id (never its secret), or the JWT subject. */
  readonly keyId: string
  readonly workspaceId: string
  readonly scopes: ReadonlySet<Scope>
}

export const hasScope = (principal: Principal, scope: Scope): boolean =>
  principal.scopes.has("admin") || principal.scopes.has(scope)
