/**
 * Guardrails saved under an id (`gr-…`), which `input_guardrails` and `output_guardrails` items
 * name by that id. Kept in the gateway's database per workspace; the definition is checked with
 * the same schema when saved as when used.
 */
import { GatewayError } from "@switchyard/core"
import { StoredObjectRequests } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import type { StoredGuardrail } from "./internal/HookPlan.ts"

export interface GuardrailObject extends StoredObjectRequests.CreateGuardrail {
  readonly id: string
  readonly object: "guardrail"
  readonly workspace_id: string
  readonly created_at: number
}

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  definition: Schema.fromJsonString(StoredObjectRequests.CreateGuardrail),
  created_at: Schema.Union([Schema.Finite, Schema.NumberFromString])
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeDefinition = Schema.encodeSync(Schema.fromJsonString(StoredObjectRequests.CreateGuardrail))

const toObject = (row: typeof Row.Type): GuardrailObject => ({
  ...row.definition,
  id: row.id,
  object: "guardrail",
  workspace_id: row.workspace_id,
  created_at: row.created_at
})

const internal = <A>(effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError>) =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`guardrails: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `guardrails: ${error.message}` }))
    ))

export class StoredGuardrails extends Context.Service<StoredGuardrails, {
  readonly create: (
    workspaceId: string,
    body: StoredObjectRequests.CreateGuardrail
  ) => Effect.Effect<GuardrailObject, GatewayError.InternalError>
  readonly list: (workspaceId: string) => Effect.Effect<ReadonlyArray<GuardrailObject>, GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<GuardrailObject, GatewayError.NotFound | GatewayError.InternalError>
  readonly remove: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<GuardrailObject, GatewayError.NotFound | GatewayError.InternalError>
  /** For the middleware's resolver: a storage failure resolves to none (the request answers 400), logged. */
  readonly resolve: (workspaceId: string, id: string) => Effect.Effect<Option.Option<StoredGuardrail>>
}>()("@switchyard/guardrails/StoredGuardrails") {
  static readonly layer: Layer.Layer<StoredGuardrails, never, SqlClient.SqlClient> = Layer.effect(
    StoredGuardrails,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const select = (where: Statement.Fragment) =>
        internal(
          sql`SELECT id, workspace_id, definition, created_at FROM guardrails WHERE deleted_at IS NULL AND ${where}`
            .pipe(
              Effect.flatMap(decodeRows)
            )
        )
      const find = (workspaceId: string, id: string) =>
        Effect.flatMap(select(sql`workspace_id = ${workspaceId} AND id = ${id}`), ([row]) =>
          row === undefined
            ? Effect.fail(new GatewayError.NotFound({ message: `guardrail ${id} not found` }))
            : Effect.succeed(toObject(row)))
      return StoredGuardrails.of({
        create: (workspaceId, body) =>
          Effect.gen(function*() {
            const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            const row = {
              id: `gr-${randomBytes(9).toString("hex")}`,
              workspace_id: workspaceId,
              name: body.name,
              definition: encodeDefinition(body),
              created_at: now,
              deleted_at: null
            }
            yield* internal(
              sql.withTransaction(
                Effect.andThen(
                  sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspaceId}, ${workspaceId}, ${now}) ON CONFLICT (id) DO NOTHING`,
                  sql`INSERT INTO guardrails ${sql.insert(row)}`
                )
              )
            )
            return toObject({ ...row, definition: body })
          }),
        list: (workspaceId) =>
          Effect.map(
            select(sql`workspace_id = ${workspaceId} ORDER BY created_at DESC, id`),
            (rows) => rows.map(toObject)
          ),
        get: find,
        remove: (workspaceId, id) =>
          Effect.gen(function*() {
            const found = yield* find(workspaceId, id)
            const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
            yield* internal(sql`UPDATE guardrails SET deleted_at = ${now} WHERE id = ${id}`)
            return found
          }),
        resolve: (workspaceId, id) =>
          find(workspaceId, id).pipe(
            Effect.map((found): Option.Option<StoredGuardrail> =>
              Option.some({
                id: found.id,
                name: found.name,
                checks: found.checks,
                ...(found.deny === undefined ? {} : { deny: found.deny }),
                ...(found.async === undefined ? {} : { async: found.async }),
                ...(found.on_fail === undefined ? {} : { on_fail: found.on_fail }),
                ...(found.on_success === undefined ? {} : { on_success: found.on_success })
              })
            ),
            Effect.catch(() => Effect.succeed(Option.none()))
          )
      })
    })
  )
}
