/**
 * Rate-limit policies as the gateway keeps them (extensions.md, "Rate-limit policies"): requests
 * or tokens per minute, hour or day, per value key, for the requests their conditions match; per
 * workspace, in the gateway's database. Archiving keeps the row and ends the enforcement.
 *
 * @example
 * import { RatePolicies } from "@switchyard/usage-limits"
 * const created = RatePolicies.RatePolicies.use((policies) =>
 *   policies.create("default", {
 *     conditions: [{ key: "workspace_id", value: "*" }], group_by: [{ key: "api_key" }],
 *     type: "requests", unit: "rpm", value: 60
 *   })
 * )
 */
import { GatewayError } from "@switchyard/core"
import { RateLimitPolicy, UsageLimitsPolicy } from "@switchyard/protocol"
import { Clock, Context, Duration, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { randomUUID } from "node:crypto"
import { ActiveCache } from "./internal/ActiveCache.ts"

export interface RatePolicy {
  readonly id: string
  readonly workspaceId: string
  readonly name: string | null
  readonly type: "requests" | "tokens"
  readonly unit: "rpm" | "rph" | "rpd"
  readonly value: number
  readonly status: "active" | "archived"
  readonly conditions: ReadonlyArray<typeof UsageLimitsPolicy.PolicyCondition.Type>
  readonly groupBy: ReadonlyArray<typeof UsageLimitsPolicy.PolicyGroupBy.Type>
  readonly createdAt: number
  readonly lastUpdatedAt: number
}

const windows = { rpm: Duration.minutes(1), rph: Duration.hours(1), rpd: Duration.days(1) } as const

/** The window of a unit. */
export const windowOf = (unit: RatePolicy["unit"]): Duration.Duration => windows[unit]

const Millis = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Conditions = Schema.fromJsonString(Schema.Array(UsageLimitsPolicy.PolicyCondition))
const GroupBy = Schema.fromJsonString(Schema.Array(UsageLimitsPolicy.PolicyGroupBy))

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.NullOr(Schema.String),
  type: RateLimitPolicy.RateLimitType,
  unit: RateLimitPolicy.RateLimitUnit,
  value: Millis,
  status: Schema.Literals(["active", "archived"]),
  conditions: Conditions,
  group_by: GroupBy,
  created_at: Millis,
  last_updated_at: Millis
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeConditions = Schema.encodeSync(Conditions)
const encodeGroupBy = Schema.encodeSync(GroupBy)

const toPolicy = (row: typeof Row.Type): RatePolicy => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  type: row.type,
  unit: row.unit,
  value: row.value,
  status: row.status,
  conditions: row.conditions,
  groupBy: row.group_by,
  createdAt: row.created_at,
  lastUpdatedAt: row.last_updated_at
})

/** The policy as the routes answer it. */
export const toWire = (policy: RatePolicy) => ({
  id: policy.id,
  object: "policy_rate_limits" as const,
  name: policy.name,
  conditions: policy.conditions,
  group_by: policy.groupBy,
  type: policy.type,
  unit: policy.unit,
  value: policy.value,
  status: policy.status,
  workspace_id: policy.workspaceId,
  created_at: new Date(policy.createdAt).toISOString(),
  last_updated_at: new Date(policy.lastUpdatedAt).toISOString()
})

const internal = <A>(effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError>) =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`rate-limit policies: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `rate-limit policies: ${error.message}` }))
    ))

type Status = "active" | "archived"
type Failure = GatewayError.NotFound | GatewayError.InternalError

export class RatePolicies extends Context.Service<RatePolicies, {
  readonly create: (
    workspaceId: string,
    body: RateLimitPolicy.CreateRateLimitPolicy
  ) => Effect.Effect<RatePolicy, GatewayError.InternalError>
  readonly list: (
    workspaceId: string,
    status: Status
  ) => Effect.Effect<ReadonlyArray<RatePolicy>, GatewayError.InternalError>
  readonly get: (workspaceId: string, id: string, status: Status) => Effect.Effect<RatePolicy, Failure>
  readonly update: (
    workspaceId: string,
    id: string,
    body: RateLimitPolicy.UpdateRateLimitPolicy
  ) => Effect.Effect<RatePolicy, Failure>
  readonly archive: (workspaceId: string, id: string) => Effect.Effect<RatePolicy, Failure>
  /** The active policies of a workspace, for the stage; read afresh at most once a second. */
  readonly active: (workspaceId: string) => Effect.Effect<ReadonlyArray<RatePolicy>, GatewayError.InternalError>
}>()("@switchyard/usage-limits/RatePolicies") {
  static readonly layer: Layer.Layer<RatePolicies, never, SqlClient.SqlClient> = Layer.effect(
    RatePolicies,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const cache = new ActiveCache<RatePolicy>()
      const select = (workspaceId: string, status: string, id?: string) =>
        internal(
          (id === undefined
            ? sql`SELECT * FROM rate_limit_policies WHERE workspace_id = ${workspaceId} AND status = ${status} ORDER BY created_at DESC, id`
            : sql`SELECT * FROM rate_limit_policies WHERE workspace_id = ${workspaceId} AND status = ${status} AND id = ${id}`)
            .pipe(Effect.flatMap(decodeRows), Effect.map((rows) => rows.map(toPolicy)))
        )
      const get = (workspaceId: string, id: string, status: Status) =>
        Effect.flatMap(select(workspaceId, status, id), ([found]) =>
          found === undefined
            ? Effect.fail(
              new GatewayError.NotFound({ message: `no ${status} rate-limit policy ${id} in this workspace` })
            )
            : Effect.succeed(found))
      const write = (policy: RatePolicy) =>
        internal(sql`UPDATE rate_limit_policies SET ${
          sql.update({
            name: policy.name,
            unit: policy.unit,
            value: policy.value,
            status: policy.status,
            last_updated_at: policy.lastUpdatedAt
          })
        } WHERE id = ${policy.id}`).pipe(
          Effect.tap(() => Effect.sync(() => cache.invalidate(policy.workspaceId))),
          Effect.as(policy)
        )
      return RatePolicies.of({
        create: (workspaceId, body) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const policy: RatePolicy = {
              id: randomUUID(),
              workspaceId,
              name: body.name ?? null,
              type: body.type,
              unit: body.unit,
              value: body.value,
              status: "active",
              conditions: body.conditions,
              groupBy: body.group_by,
              createdAt: now,
              lastUpdatedAt: now
            }
            const seconds = Math.floor(now / 1000)
            yield* internal(sql.withTransaction(Effect.andThen(
              sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspaceId}, ${workspaceId}, ${seconds}) ON CONFLICT (id) DO NOTHING`,
              sql`INSERT INTO rate_limit_policies ${
                sql.insert({
                  id: policy.id,
                  workspace_id: workspaceId,
                  name: policy.name,
                  type: policy.type,
                  unit: policy.unit,
                  value: policy.value,
                  status: policy.status,
                  conditions: encodeConditions(policy.conditions),
                  group_by: encodeGroupBy(policy.groupBy),
                  created_at: now,
                  last_updated_at: now
                })
              }`
            )))
            cache.invalidate(workspaceId)
            return policy
          }),
        list: (workspaceId, status) => select(workspaceId, status),
        get,
        update: (workspaceId, id, body) =>
          Effect.gen(function*() {
            const found = yield* get(workspaceId, id, "active")
            return yield* write({
              ...found,
              name: body.name === undefined ? found.name : body.name,
              unit: body.unit ?? found.unit,
              value: body.value ?? found.value,
              lastUpdatedAt: yield* Clock.currentTimeMillis
            })
          }),
        archive: (workspaceId, id) =>
          Effect.gen(function*() {
            const found = yield* get(workspaceId, id, "active")
            return yield* write({ ...found, status: "archived", lastUpdatedAt: yield* Clock.currentTimeMillis })
          }),
        active: (workspaceId) => cache.get(workspaceId, select(workspaceId, "active"))
      })
    })
  )
}
