/**
 * Stored configs (`pc-…`): a config object saved under a name, validated with the same schema as
 * a header config when saved, selected by its id in `x-gateway-config`. Each save bumps its
 * version, which keys the compiled Dispatch. A config may hold provider credentials, so it is
 * sealed at rest like any credential, and every answer masks them.
 */
import { SecretBox, ServerSecret, StoredRow } from "@switchyard/auth"
import { GatewayError, ShortLivedCache, TrustedHosts } from "@switchyard/core"
import { GatewayConfig, StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as CallerUrls from "./internal/CallerUrls.ts"

export interface StoredConfig {
  readonly id: string
  readonly object: "config"
  readonly name: string
  readonly workspace_id: string
  readonly config: MaskedConfig
  readonly version: number
  readonly created_at: number
  readonly updated_at: number
}

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  config: Schema.String,
  version: Schema.Finite,
  created_at: StoredRow.Timestamp,
  updated_at: StoredRow.Timestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const decodeConfig = Schema.decodeUnknownEffect(GatewayConfig.GatewayConfig)
const encodeConfig = Schema.encodeSync(GatewayConfig.GatewayConfig)

interface OpenedRow {
  readonly id: string
  readonly workspace_id: string
  readonly name: string
  readonly config: GatewayConfig.GatewayConfig
  readonly version: number
  readonly created_at: number
  readonly updated_at: number
}

const secretFields: ReadonlyArray<string> = StoredObjectRequests.secretCredentialFields

/** A view of the config with every credential in its tree replaced by a hint, for answers. */
export const masked = (config: GatewayConfig.GatewayConfig): MaskedConfig => {
  const copy: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    copy[key] = secretFields.includes(key)
      ? typeof value === "string" && value.length >= 12 ? `****${value.slice(-4)}` : "****"
      : value
  }
  if (config.targets !== undefined) copy.targets = config.targets.map(masked)
  return copy
}

/** A config as answers show it: its credentials masked. */
export type MaskedConfig = object

const toStoredConfig = (row: OpenedRow): StoredConfig => ({
  id: row.id,
  object: "config",
  name: row.name,
  workspace_id: row.workspace_id,
  config: masked(row.config),
  version: row.version,
  created_at: row.created_at,
  updated_at: row.updated_at
})

/** What a request runs: the whole config, credentials included; never answered to a client. */
export interface ResolvedConfig {
  readonly id: string
  readonly config: GatewayConfig.GatewayConfig
  readonly version: number
}

export class StoredConfigs extends Context.Service<StoredConfigs, {
  readonly create: (
    workspaceId: string,
    body: StoredObjectRequests.CreateConfig
  ) => Effect.Effect<StoredConfig, GatewayError.InvalidRequest | GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<StoredConfig>, GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<StoredConfig, GatewayError.NotFound | GatewayError.InternalError>
  readonly update: (
    workspaceId: string,
    id: string,
    body: StoredObjectRequests.UpdateConfig
  ) => Effect.Effect<StoredConfig, GatewayError.InvalidRequest | GatewayError.NotFound | GatewayError.InternalError>
  readonly remove: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<StoredConfig, GatewayError.NotFound | GatewayError.InternalError>
  /** The config a request names by id, read from storage at most once a moment. */
  /** The config a request names by id, credentials included, read from storage at most once a moment. */
  readonly resolve: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<Option.Option<ResolvedConfig>, GatewayError.InternalError>
}>()("@switchyard/provider-access/StoredConfigs") {
  static readonly layer: Layer.Layer<StoredConfigs, never, SqlClient.SqlClient | ServerSecret.ServerSecret> = Layer
    .effect(
      StoredConfigs,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const secret = yield* ServerSecret.ServerSecret
        const hosts = yield* TrustedHosts.TrustedHosts
        // every URL the config names is refused on save, as it would be when used
        const checkUrls = (config: GatewayConfig.GatewayConfig) => CallerUrls.check(hosts, CallerUrls.ofConfig(config))
        const internal = StoredRow.orInternal("configs")
        const resolved = new ShortLivedCache.ShortLivedCache<Option.Option<ResolvedConfig>>({
          capacity: 4096,
          ttlMs: 2_000
        })
        const seal = (config: GatewayConfig.GatewayConfig) => SecretBox.seal(secret.credentialKey, encodeConfig(config))
        const open = (row: typeof Row.Type): Effect.Effect<OpenedRow, GatewayError.InternalError> =>
          SecretBox.open(secret.credentialKey, row.config).pipe(
            Effect.flatMap(decodeConfig),
            Effect.map((config) => ({ ...row, config })),
            Effect.mapError(() =>
              new GatewayError.InternalError({
                message: `config ${row.id} cannot be opened: was GATEWAY_SECRET changed?`
              })
            )
          )
        const select = (where: Statement.Fragment) =>
          sql`SELECT id, workspace_id, name, config, version, created_at, updated_at FROM configs WHERE deleted_at IS NULL AND ${where}`
            .pipe(Effect.flatMap(decodeRows), internal, Effect.flatMap(Effect.forEach(open)))
        const findRow = (workspaceId: string, id: string) =>
          Effect.flatMap(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
            row === undefined
              ? Effect.fail(new GatewayError.NotFound({ message: `config ${id} not found` }))
              : Effect.succeed(row))
        const find = (workspaceId: string, id: string) => Effect.map(findRow(workspaceId, id), toStoredConfig)
        const now = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

        return StoredConfigs.of({
          create: (workspaceId, body) =>
            Effect.gen(function*() {
              yield* checkUrls(body.config)
              const at = yield* now
              const row = {
                id: `pc-${randomBytes(9).toString("hex")}`,
                workspace_id: workspaceId,
                name: body.name,
                config: seal(body.config),
                version: 1,
                created_at: at,
                updated_at: at,
                deleted_at: null
              }
              yield* sql.withTransaction(
                Effect.andThen(
                  StoredRow.ensureWorkspace(sql, workspaceId, at),
                  sql`INSERT INTO configs ${sql.insert(row)}`
                )
              ).pipe(internal)
              return toStoredConfig({ ...row, config: body.config })
            }),
          list: (workspaceId) =>
            Effect.map(
              select(sql`workspace_id = ${workspaceId} ORDER BY created_at DESC, id`),
              (rows) => rows.map(toStoredConfig)
            ),
          get: find,
          update: (workspaceId, id, body) =>
            Effect.gen(function*() {
              if (body.config !== undefined) yield* checkUrls(body.config)
              const current = yield* findRow(workspaceId, id)
              const next = {
                name: body.name ?? current.name,
                config: body.config ?? current.config,
                version: current.version + 1,
                updated_at: yield* now
              }
              yield* sql`UPDATE configs SET name = ${next.name}, config = ${
                seal(next.config)
              }, version = ${next.version}, updated_at = ${next.updated_at} WHERE id = ${id} AND workspace_id = ${workspaceId}`
                .pipe(internal)
              resolved.invalidate(`${workspaceId}\n${id}`)
              return toStoredConfig({ ...current, ...next })
            }),
          remove: (workspaceId, id) =>
            Effect.gen(function*() {
              const current = yield* find(workspaceId, id)
              yield* sql`UPDATE configs SET deleted_at = ${yield* now} WHERE id = ${id}`.pipe(internal)
              resolved.invalidate(`${workspaceId}\n${id}`)
              return current
            }),
          resolve: (workspaceId, id) =>
            resolved.through(
              `${workspaceId}\n${id}`,
              () =>
                Effect.map(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
                  row === undefined
                    ? Option.none()
                    : Option.some({ id: row.id, config: row.config, version: row.version }))
            )
        })
      })
    )
}
