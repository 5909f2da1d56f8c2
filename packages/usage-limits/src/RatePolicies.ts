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
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import * as PolicyStore from "./internal/PolicyStore.ts"

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

const { ConditionsColumn, GroupByColumn, Millis } = PolicyStore

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.NullOr(Schema.String),
  type: RateLimitPolicy.RateLimitType,
  unit: RateLimitPolicy.RateLimitUnit,
  value: Millis,
  status: Schema.Literals(["active", "archived"]),
  conditions: ConditionsColumn,
  group_by: GroupByColumn,
  created_at: Millis,
  last_updated_at: Millis
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

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

const table: PolicyStore.PolicyTable<RatePolicy> = {
  table: "rate_limit_policies",
  noun: { one: "rate-limit policy", many: "rate-limit policies" },
  decode: (rows) => Effect.map(decodeRows(rows), (decoded) => decoded.map(toPolicy)),
  insertColumns: (policy) => ({
    id: policy.id,
    workspace_id: policy.workspaceId,
    name: policy.name,
    type: policy.type,
    unit: policy.unit,
    value: policy.value,
    status: policy.status,
    conditions: PolicyStore.encodeConditions(policy.conditions),
    group_by: PolicyStore.encodeGroupBy(policy.groupBy),
    created_at: policy.createdAt,
    last_updated_at: policy.lastUpdatedAt
  }),
  updateColumns: (policy) => ({
    name: policy.name,
    unit: policy.unit,
    value: policy.value,
    status: policy.status,
    last_updated_at: policy.lastUpdatedAt
  })
}

type Status = PolicyStore.Status
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
  /** What `active` answers while its last read is under a second old at `now`; `undefined` when it must read. */
  readonly activeKept: (workspaceId: string, now: number) => ReadonlyArray<RatePolicy> | undefined
}>()("@switchyard/usage-limits/RatePolicies") {
  static readonly layer: Layer.Layer<RatePolicies, never, SqlClient.SqlClient> = Layer.effect(
    RatePolicies,
    Effect.gen(function*() {
      const store = PolicyStore.make(yield* SqlClient.SqlClient, table)
      return RatePolicies.of({
        create: (workspaceId, body) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            store.insert({
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
            })),
        list: store.list,
        get: store.get,
        update: (workspaceId, id, body) =>
          Effect.gen(function*() {
            const found = yield* store.get(workspaceId, id, "active")
            return yield* store.write({
              ...found,
              name: body.name === undefined ? found.name : body.name,
              unit: body.unit ?? found.unit,
              value: body.value ?? found.value,
              lastUpdatedAt: yield* Clock.currentTimeMillis
            })
          }),
        archive: store.archive,
        active: store.active,
        activeKept: store.activeKept
      })
    })
  )
}
