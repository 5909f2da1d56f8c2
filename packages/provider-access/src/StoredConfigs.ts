/**
 * Stored configs (`pc-…`): a config object saved under a name, validated with the same schema as
 * a header config when saved, selected by its id in `x-gateway-config`. Each save bumps its
 * version, which keys the compiled Dispatch.
 */
import { ApiKeys, StoredRow } from "@switchyard/auth"
import { GatewayError } from "@switchyard/core"
import { GatewayConfig, type StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import { ShortLivedCache } from "./internal/ShortLivedCache.ts"

export interface StoredConfig {
  readonly id: string
  readonly object: "config"
  readonly name: string
  readonly workspace_id: string
  readonly config: GatewayConfig.GatewayConfig
  readonly version: number
  readonly created_at: number
  readonly updated_at: number
}

const Timestamp = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  config: Schema.fromJsonString(GatewayConfig.GatewayConfig),
  version: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeConfig = Schema.encodeSync(Schema.fromJsonString(GatewayConfig.GatewayConfig))

const toStoredConfig = (row: typeof Row.Type): StoredConfig => ({ ...row, object: "config" })

export class StoredConfigs extends Context.Service<StoredConfigs, {
  readonly create: (
    workspaceId: string,
    body: StoredObjectRequests.CreateConfig
  ) => Effect.Effect<StoredConfig, GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<StoredConfig>, GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<StoredConfig, GatewayError.NotFound | GatewayError.InternalError>
  readonly update: (
    workspaceId: string,
    id: string,
    body: StoredObjectRequests.UpdateConfig
  ) => Effect.Effect<StoredConfig, GatewayError.NotFound | GatewayError.InternalError>
  readonly remove: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<StoredConfig, GatewayError.NotFound | GatewayError.InternalError>
  /** The config a request names by id, read from storage at most once a moment. */
  readonly resolve: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<Option.Option<StoredConfig>, GatewayError.InternalError>
}>()("@switchyard/provider-access/StoredConfigs") {
  static readonly layer: Layer.Layer<StoredConfigs, never, SqlClient.SqlClient> = Layer.effect(
    StoredConfigs,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const internal = ApiKeys.orInternal("configs")
      const resolved = new ShortLivedCache<Option.Option<StoredConfig>>({ capacity: 4096, ttlMs: 2_000 })
      const select = (where: Statement.Fragment) =>
        sql`SELECT id, workspace_id, name, config, version, created_at, updated_at FROM configs WHERE deleted_at IS NULL AND ${where}`
          .pipe(Effect.flatMap(decodeRows), internal)
      const find = (workspaceId: string, id: string) =>
        Effect.flatMap(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
          row === undefined
            ? Effect.fail(new GatewayError.NotFound({ message: `config ${id} not found` }))
            : Effect.succeed(toStoredConfig(row)))
      const now = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      return StoredConfigs.of({
        create: (workspaceId, body) =>
          Effect.gen(function*() {
            const at = yield* now
            const row = {
              id: `pc-${randomBytes(9).toString("hex")}`,
              workspace_id: workspaceId,
              name: body.name,
              config: encodeConfig(body.config),
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
            const current = yield* find(workspaceId, id)
            const next = {
              name: body.name ?? current.name,
              config: body.config ?? current.config,
              version: current.version + 1,
              updated_at: yield* now
            }
            yield* sql`UPDATE configs SET name = ${next.name}, config = ${
              encodeConfig(next.config)
            }, version = ${next.version}, updated_at = ${next.updated_at} WHERE id = ${id} AND workspace_id = ${workspaceId}`
              .pipe(internal)
            resolved.invalidate(`${workspaceId}\n${id}`)
            return { ...current, ...next }
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
            Effect.map(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
              row === undefined ? Option.none() : Option.some(toStoredConfig(row)))
          )
      })
    })
  )
}
