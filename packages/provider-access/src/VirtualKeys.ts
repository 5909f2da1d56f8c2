/**
 * Virtual keys (legacy): a token, sent as `x-gateway-virtual-key`, that stands for stored
 * provider credentials. The token is shown once at creation and kept only as a keyed hash, like
 * an API key; the credentials behind it are sealed.
 */
import { ServerSecret, StoredRow } from "@switchyard/auth"
import { GatewayError, ShortLivedCache, TrustedHosts } from "@switchyard/core"
import type { StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { createHmac, randomBytes } from "node:crypto"
import type { ResolvedIntegration } from "./Integrations.ts"
import * as CallerUrls from "./internal/CallerUrls.ts"
import { credentialsOf, open, seal, visibleSettings } from "./StoredCredentials.ts"

export interface VirtualKey {
  readonly id: string
  readonly object: "virtual_key"
  readonly name: string
  readonly provider: string
  readonly workspace_id: string
  /** The first characters of the token, to tell keys apart. */
  readonly key_prefix: string
  readonly created_at: number
  readonly settings: Readonly<Record<string, unknown>>
}

export interface CreatedVirtualKey extends VirtualKey {
  /** The token, shown this once. */
  readonly key: string
}

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  provider: Schema.String,
  key_prefix: Schema.String,
  credentials: Schema.String,
  settings: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  created_at: StoredRow.Timestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

const toVirtualKey = (row: typeof Row.Type): VirtualKey => ({
  id: row.id,
  object: "virtual_key",
  name: row.name,
  provider: row.provider,
  workspace_id: row.workspace_id,
  key_prefix: row.key_prefix,
  created_at: row.created_at,
  settings: row.settings
})

export class VirtualKeys extends Context.Service<VirtualKeys, {
  readonly create: (
    workspaceId: string,
    body: StoredObjectRequests.CreateVirtualKey
  ) => Effect.Effect<CreatedVirtualKey, GatewayError.InvalidRequest | GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<VirtualKey>, GatewayError.InternalError>
  readonly remove: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<VirtualKey, GatewayError.NotFound | GatewayError.InternalError>
  readonly resolve: (
    workspaceId: string,
    token: string
  ) => Effect.Effect<Option.Option<ResolvedIntegration>, GatewayError.InternalError>
}>()("@switchyard/provider-access/VirtualKeys") {
  static readonly layer: Layer.Layer<VirtualKeys, never, SqlClient.SqlClient | ServerSecret.ServerSecret> = Layer
    .effect(
      VirtualKeys,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const secret = yield* ServerSecret.ServerSecret
        const hosts = yield* TrustedHosts.TrustedHosts
        const internal = StoredRow.orInternal("virtual keys")
        const hashOf = (token: string) => createHmac("sha256", secret.apiKeyHmacKey).update(token).digest("hex")
        const resolved = new ShortLivedCache.ShortLivedCache<Option.Option<ResolvedIntegration>>({
          capacity: 4096,
          ttlMs: 2_000
        })
        const select = (where: Statement.Fragment) =>
          sql`SELECT id, workspace_id, name, provider, key_prefix, credentials, settings, created_at FROM virtual_keys WHERE deleted_at IS NULL AND ${where}`
            .pipe(Effect.flatMap(decodeRows), internal)

        return VirtualKeys.of({
          create: (workspaceId, body) =>
            Effect.gen(function*() {
              const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
              const key = `vk-${randomBytes(24).toString("base64url")}`
              const credentials = credentialsOf(body)
              yield* CallerUrls.check(hosts, CallerUrls.ofCredentials(credentials))
              const row = {
                id: `vk_${randomBytes(12).toString("hex")}`,
                workspace_id: workspaceId,
                name: body.name,
                provider: body.provider,
                key_hash: hashOf(key),
                key_prefix: key.slice(0, 9),
                credentials: seal(secret, credentials),
                settings: JSON.stringify(visibleSettings(credentials)),
                created_at: now,
                deleted_at: null
              }
              yield* sql.withTransaction(
                Effect.andThen(
                  StoredRow.ensureWorkspace(sql, workspaceId, now),
                  sql`INSERT INTO virtual_keys ${sql.insert(row)}`
                )
              ).pipe(internal)
              const created: CreatedVirtualKey = {
                ...toVirtualKey({ ...row, settings: visibleSettings(credentials) }),
                key
              }
              return created
            }),
          list: (workspaceId) =>
            Effect.map(
              select(sql`workspace_id = ${workspaceId} ORDER BY created_at DESC, id`),
              (rows) => rows.map(toVirtualKey)
            ),
          remove: (workspaceId, id) =>
            Effect.gen(function*() {
              const [row] = yield* select(sql`workspace_id = ${workspaceId} AND id = ${id}`)
              if (row === undefined) return yield* new GatewayError.NotFound({ message: `virtual key ${id} not found` })
              const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
              yield* sql`UPDATE virtual_keys SET deleted_at = ${now} WHERE id = ${id}`.pipe(internal)
              resolved.invalidateAll()
              return toVirtualKey(row)
            }),
          resolve: (workspaceId, token) => {
            const hash = hashOf(token)
            return resolved.through(
              `${workspaceId}\n${hash}`,
              () =>
                Effect.gen(function*() {
                  const [row] = yield* select(sql`workspace_id = ${workspaceId} AND key_hash = ${hash}`)
                  if (row === undefined) return Option.none()
                  const credentials = yield* open(secret, row.credentials)
                  return Option.some({ id: row.id, provider: row.provider, credentials, version: row.created_at })
                })
            )
          }
        })
      })
    )
}
