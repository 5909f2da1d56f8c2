/**
 * Usage-limit policies as the gateway keeps them (interface 2.6, 4.7, 4.8): per workspace, in the
 * gateway's database (SQLite or Postgres). Archiving keeps the row; a reset starts a new epoch of
 * counters, so reservations taken before it settle on the old counters, never on the new ones.
 *
 * @example
 * import { UsagePolicies } from "@switchyard/usage-limits"
 * import { Effect } from "effect"
 * const created = UsagePolicies.UsagePolicies.use((policies) =>
 *   policies.create("default", {
 *     conditions: [{ key: "workspace_id", value: "*" }], group_by: [{ key: "api_key" }],
 *     type: "tokens", credit_limit: 100_000
 *   })
 * )
 */
import { GatewayError } from "@switchyard/core"
import { UsageLimitsPolicy } from "@switchyard/protocol"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import * as PolicyStore from "./internal/PolicyStore.ts"

/** The organisation of policies created with an API key, which names none. */
export const DEFAULT_ORGANISATION_ID = "00000000-0000-4000-8000-000000000001"

/** A stored policy, as the stage reads it. */
export interface UsagePolicy {
  readonly id: string
  readonly workspaceId: string
  readonly organisationId: string
  readonly name: string | null
  readonly type: "cost" | "tokens"
  readonly status: "active" | "archived"
  readonly conditions: ReadonlyArray<typeof UsageLimitsPolicy.PolicyCondition.Type>
  readonly groupBy: ReadonlyArray<typeof UsageLimitsPolicy.PolicyGroupBy.Type>
  readonly creditLimit: number
  readonly alertThreshold: number | null
  readonly periodicReset: "monthly" | "weekly" | null
  /** Grows with every reset; part of each counter's key. */
  readonly epoch: number
  /** When the usage was last cleared by a reset (epoch ms). */
  readonly resetAt: number | null
  readonly createdAt: number
  readonly lastUpdatedAt: number
}

const { ConditionsColumn, GroupByColumn, Millis } = PolicyStore

const Row = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  organisation_id: Schema.String,
  name: Schema.NullOr(Schema.String),
  type: UsageLimitsPolicy.PolicyType,
  status: Schema.Literals(["active", "archived"]),
  conditions: ConditionsColumn,
  group_by: GroupByColumn,
  credit_limit: Millis,
  alert_threshold: Schema.NullOr(Millis),
  periodic_reset: Schema.NullOr(UsageLimitsPolicy.PeriodicReset),
  epoch: Millis,
  reset_at: Schema.NullOr(Millis),
  created_at: Millis,
  last_updated_at: Millis
})
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

const toPolicy = (row: typeof Row.Type): UsagePolicy => ({
  id: row.id,
  workspaceId: row.workspace_id,
  organisationId: row.organisation_id,
  name: row.name,
  type: row.type,
  status: row.status,
  conditions: row.conditions,
  groupBy: row.group_by,
  creditLimit: row.credit_limit,
  alertThreshold: row.alert_threshold,
  periodicReset: row.periodic_reset,
  epoch: row.epoch,
  resetAt: row.reset_at,
  createdAt: row.created_at,
  lastUpdatedAt: row.last_updated_at
})

/** The policy as the interface answers it (2.6), with `value_key_usage_map` when given. */
export const toWire = (
  policy: UsagePolicy,
  usage?: Readonly<Record<string, typeof UsageLimitsPolicy.ValueKeyUsage.Type>>
): UsageLimitsPolicy.UsageLimitsPolicy => ({
  id: policy.id,
  object: "policy_usage_limits",
  type: policy.type,
  status: policy.status,
  workspace_id: policy.workspaceId,
  organisation_id: policy.organisationId,
  created_at: new Date(policy.createdAt).toISOString(),
  last_updated_at: new Date(policy.lastUpdatedAt).toISOString(),
  name: policy.name,
  conditions: policy.conditions,
  group_by: policy.groupBy,
  credit_limit: policy.creditLimit,
  alert_threshold: policy.alertThreshold,
  periodic_reset: policy.periodicReset,
  ...(usage === undefined ? {} : { value_key_usage_map: usage })
})

const table: PolicyStore.PolicyTable<UsagePolicy> = {
  table: "usage_limit_policies",
  noun: { one: "usage-limit policy", many: "usage-limit policies" },
  decode: (rows) => Effect.map(decodeRows(rows), (decoded) => decoded.map(toPolicy)),
  insertColumns: (policy) => ({
    id: policy.id,
    workspace_id: policy.workspaceId,
    organisation_id: policy.organisationId,
    name: policy.name,
    type: policy.type,
    status: policy.status,
    conditions: PolicyStore.encodeConditions(policy.conditions),
    group_by: PolicyStore.encodeGroupBy(policy.groupBy),
    credit_limit: policy.creditLimit,
    alert_threshold: policy.alertThreshold,
    periodic_reset: policy.periodicReset,
    epoch: policy.epoch,
    reset_at: policy.resetAt,
    created_at: policy.createdAt,
    last_updated_at: policy.lastUpdatedAt
  }),
  updateColumns: (policy) => ({
    name: policy.name,
    status: policy.status,
    credit_limit: policy.creditLimit,
    alert_threshold: policy.alertThreshold,
    periodic_reset: policy.periodicReset,
    epoch: policy.epoch,
    reset_at: policy.resetAt,
    last_updated_at: policy.lastUpdatedAt
  })
}

type Failure = GatewayError.NotFound | GatewayError.InvalidRequest | GatewayError.InternalError

export class UsagePolicies extends Context.Service<UsagePolicies, {
  readonly create: (
    workspaceId: string,
    body: UsageLimitsPolicy.CreateUsageLimitsPolicy
  ) => Effect.Effect<UsagePolicy, GatewayError.InternalError>
  readonly list: (
    workspaceId: string,
    status: PolicyStore.Status
  ) => Effect.Effect<ReadonlyArray<UsagePolicy>, GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string,
    status: PolicyStore.Status
  ) => Effect.Effect<UsagePolicy, GatewayError.NotFound | GatewayError.InternalError>
  readonly update: (
    workspaceId: string,
    id: string,
    body: UsageLimitsPolicy.UpdateUsageLimitsPolicy
  ) => Effect.Effect<UsagePolicy, Failure>
  /** Archives (status `archived`): no longer enforced. */
  readonly archive: (workspaceId: string, id: string) => Effect.Effect<UsagePolicy, Failure>
  /** Clears the usage: the policy's counters start again from zero. */
  readonly reset: (workspaceId: string, id: string) => Effect.Effect<UsagePolicy, Failure>
  /** The active policies of a workspace, for the stage; read afresh at most once a second. */
  readonly active: (workspaceId: string) => Effect.Effect<ReadonlyArray<UsagePolicy>, GatewayError.InternalError>
  /** What `active` answers while its last read is under a second old at `now`; `undefined` when it must read. */
  readonly activeKept: (workspaceId: string, now: number) => ReadonlyArray<UsagePolicy> | undefined
}>()("@switchyard/usage-limits/UsagePolicies") {
  static readonly layer: Layer.Layer<UsagePolicies, never, SqlClient.SqlClient> = Layer.effect(
    UsagePolicies,
    Effect.gen(function*() {
      const store = PolicyStore.make(yield* SqlClient.SqlClient, table)
      return UsagePolicies.of({
        create: (workspaceId, body) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            store.insert({
              id: randomUUID(),
              workspaceId,
              organisationId: body.organisation_id ?? DEFAULT_ORGANISATION_ID,
              name: body.name ?? null,
              type: body.type,
              status: "active",
              conditions: body.conditions,
              groupBy: body.group_by,
              creditLimit: body.credit_limit,
              alertThreshold: body.alert_threshold ?? null,
              periodicReset: body.periodic_reset ?? null,
              epoch: 0,
              resetAt: null,
              createdAt: now,
              lastUpdatedAt: now
            })),
        list: store.list,
        get: store.get,
        update: (workspaceId, id, body) =>
          Effect.gen(function*() {
            const found = yield* store.get(workspaceId, id, "active")
            const creditLimit = body.credit_limit ?? found.creditLimit
            const alertThreshold = body.alert_threshold === undefined ? found.alertThreshold : body.alert_threshold
            if (alertThreshold !== null && alertThreshold >= creditLimit) {
              return yield* new GatewayError.InvalidRequest({
                message: `alert_threshold: must be less than credit_limit (${creditLimit})`,
                param: "alert_threshold"
              })
            }
            return yield* store.write({
              ...found,
              name: body.name === undefined ? found.name : body.name,
              creditLimit,
              alertThreshold,
              periodicReset: body.periodic_reset === undefined ? found.periodicReset : body.periodic_reset,
              lastUpdatedAt: yield* Clock.currentTimeMillis
            })
          }),
        archive: store.archive,
        reset: (workspaceId, id) =>
          Effect.gen(function*() {
            const found = yield* store.get(workspaceId, id, "active")
            const now = yield* Clock.currentTimeMillis
            return yield* store.write({ ...found, epoch: found.epoch + 1, resetAt: now, lastUpdatedAt: now })
          }),
        active: store.active,
        activeKept: store.activeKept
      })
    })
  )
}
