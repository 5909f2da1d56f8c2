/**
 * API keys: created with a name, scopes, a workspace and an optional expiry; the secret is shown
 * once and kept only as an HMAC under the server secret; listed without secrets; revoked.
 */
import { GatewayError, LeastRecentlyUsed, Principal } from "@switchyard/core"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import { ServerSecret } from "./ServerSecret.ts"
import { ensureWorkspace, NullableTimestamp, orInternal, Timestamp } from "./StoredRow.ts"

export const ScopeSchema = Schema.Literals(Principal.scopes)

/** An API key as it is listed: never its secret. */
export interface ApiKey {
  readonly id: string
  readonly object: "api_key"
  readonly name: string
  readonly workspace_id: string
  readonly scopes: ReadonlyArray<Principal.Scope>
  /** The first characters of the secret, to tell keys apart. */
  readonly key_prefix: string
  readonly created_at: number
  readonly expires_at: number | null
  readonly revoked_at: number | null
}

/** A key as its creation answers it: the one time the secret is shown. */
export interface CreatedApiKey extends ApiKey {
  readonly key: string
}

export interface CreateApiKey {
  readonly name: string
  readonly scopes: ReadonlyArray<Principal.Scope>
  readonly workspace_id: string
  readonly expires_at?: number | undefined
}

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  key_prefix: Schema.String,
  scopes: Schema.fromJsonString(Schema.Array(ScopeSchema)),
  created_at: Timestamp,
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

const toApiKey = (row: typeof Row.Type): ApiKey => ({
  id: row.id,
  object: "api_key",
  name: row.name,
  workspace_id: row.workspace_id,
  scopes: row.scopes,
  key_prefix: row.key_prefix,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at
})

/** How long a verified key is trusted without asking storage again (revocation here is immediate). */
const VERIFIED_TTL_MS = 5_000

export class ApiKeys extends Context.Service<ApiKeys, {
  readonly create: (input: CreateApiKey) => Effect.Effect<CreatedApiKey, GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<ApiKey>, GatewayError.InternalError>
  /** One key of the workspace, revoked or not; another workspace's key is not found. */
  readonly get: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<ApiKey, GatewayError.NotFound | GatewayError.InternalError>
  readonly revoke: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<ApiKey, GatewayError.NotFound | GatewayError.InternalError>
  /** The principal of a live key (not revoked, not expired), or none. */
  readonly verify: (secret: string) => Effect.Effect<Option.Option<Principal.Principal>, GatewayError.InternalError>
  /** How many keys exist, revoked ones included. */
  readonly count: Effect.Effect<number, GatewayError.InternalError>
}>()("@switchyard/auth/ApiKeys") {
  static readonly layer: Layer.Layer<ApiKeys, never, SqlClient.SqlClient | ServerSecret> = Layer.effect(
    ApiKeys,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const secret = yield* ServerSecret
      const hashOf = (key: string) => createHmac("sha256", secret.apiKeyHmacKey).update(key).digest("hex")
      const verified = new LeastRecentlyUsed.LeastRecentlyUsed<
        string,
        { readonly principal: Principal.Principal; readonly until: number }
      >(
        4096
      )
      const internal = orInternal("api keys")

      const select = (where: Statement.Fragment) =>
        sql`SELECT id, workspace_id, name, key_prefix, scopes, created_at, expires_at, revoked_at FROM api_keys WHERE ${where}`
          .pipe(Effect.flatMap(decodeRows))
      const notFound = (id: string) => new GatewayError.NotFound({ message: `api key ${id} not found` })

      return ApiKeys.of({
        create: (input) =>
          Effect.gen(function*() {
            const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            const key = `sy-${randomBytes(32).toString("base64url")}`
            const row = {
              id: `key_${randomBytes(12).toString("hex")}`,
              workspace_id: input.workspace_id,
              name: input.name,
              key_hash: hashOf(key),
              key_prefix: key.slice(0, 10),
              scopes: JSON.stringify([...new Set(input.scopes)]),
              created_at: now,
              expires_at: input.expires_at ?? null,
              revoked_at: null,
              last_used_at: null
            }
            yield* sql.withTransaction(
              Effect.andThen(
                ensureWorkspace(sql, input.workspace_id, now),
                sql`INSERT INTO api_keys ${sql.insert(row)}`
              )
            )
            const created: CreatedApiKey = {
              ...toApiKey({ ...row, scopes: [...new Set(input.scopes)] }),
              key
            }
            return created
          }).pipe(internal),
        list: (workspaceId) =>
          select(sql`workspace_id = ${workspaceId} ORDER BY created_at DESC, id`).pipe(
            Effect.map((rows) => rows.map(toApiKey)),
            internal
          ),
        get: (workspaceId, id) =>
          select(sql`id = ${id} AND workspace_id = ${workspaceId}`).pipe(
            internal,
            Effect.flatMap(([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(toApiKey(row)))
          ),
        revoke: (workspaceId, id) =>
          Effect.gen(function*() {
            const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            yield* sql`UPDATE api_keys SET revoked_at = ${now} WHERE id = ${id} AND workspace_id = ${workspaceId} AND revoked_at IS NULL`
            return yield* select(sql`id = ${id} AND workspace_id = ${workspaceId}`)
          }).pipe(
            internal,
            Effect.flatMap(([row]) =>
              row === undefined
                ? Effect.fail(notFound(id))
                : Effect.sync(() => {
                  verified.clear()
                  return toApiKey(row)
                })
            )
          ),
        verify: (key) =>
          Effect.gen(function*() {
            const nowMs = yield* Clock.currentTimeMillis
            const hash = hashOf(key)
            const cached = verified.get(hash)
            if (cached !== undefined && cached.until > nowMs) return Option.some(cached.principal)
            const now = Math.floor(nowMs / 1000)
            const rows = yield* select(sql`key_hash = ${hash}`)
            const row = rows[0]
            if (row === undefined || row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) {
              return Option.none()
            }
            const principal: Principal.Principal = {
              keyId: row.id,
              workspaceId: row.workspace_id,
              scopes: new Set(row.scopes),
              ...(row.expires_at === null ? {} : { expiresAt: row.expires_at })
            }
            const until = row.expires_at === null
              ? nowMs + VERIFIED_TTL_MS
              : Math.min(nowMs + VERIFIED_TTL_MS, row.expires_at * 1000)
            verified.set(hash, { principal, until })
            return Option.some(principal)
          }).pipe(internal),
        count: sql<{ readonly n: number | string }>`SELECT COUNT(*) AS n FROM api_keys`.pipe(
          Effect.map((rows) => Number(rows[0]?.n ?? 0)),
          internal
        )
      })
    })
  )
}
