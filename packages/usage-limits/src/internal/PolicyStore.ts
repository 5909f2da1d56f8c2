/**
 * What usage-limit and rate-limit policies share in the database: rows per workspace with a
 * `status` (`active` or `archived`), read by id or listed newest first, written whole, archived
 * rather than deleted, and the active ones cached a second for the stage (core's `ShortLivedCache`). Each
 * kind says its table, its columns and its words for messages; its service adds what is its own
 * (building a policy from a request, checking an update, a usage policy's reset).
 */
import { GatewayError, ShortLivedCache } from "@switchyard/core"
import { UsageLimitsPolicy } from "@switchyard/protocol"
import { Clock, Effect, Schema } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

export type Status = "active" | "archived"

/** A number column as either driver reads it: a number, or a numeric string. */
export const Millis = Schema.Union([Schema.Finite, Schema.NumberFromString])
/** `conditions` and `group_by` are stored as JSON text. */
export const ConditionsColumn = Schema.fromJsonString(Schema.Array(UsageLimitsPolicy.PolicyCondition))
export const GroupByColumn = Schema.fromJsonString(Schema.Array(UsageLimitsPolicy.PolicyGroupBy))
export const encodeConditions = Schema.encodeSync(ConditionsColumn)
export const encodeGroupBy = Schema.encodeSync(GroupByColumn)

/** What every stored policy has. */
export interface StoredPolicy {
  readonly id: string
  readonly workspaceId: string
  readonly status: Status
  readonly lastUpdatedAt: number
}

/** One kind of policy as its table keeps it. */
export interface PolicyTable<P extends StoredPolicy> {
  readonly table: "usage_limit_policies" | "rate_limit_policies"
  /** Its name in messages, one and many: `usage-limit policy`, `usage-limit policies`. */
  readonly noun: { readonly one: string; readonly many: string }
  readonly decode: (rows: unknown) => Effect.Effect<ReadonlyArray<P>, Schema.SchemaError>
  /** Every column of a new row. */
  readonly insertColumns: (policy: P) => Record<string, unknown>
  /** The columns an update or an archive may change. */
  readonly updateColumns: (policy: P) => Record<string, unknown>
}

export interface PolicyStore<P extends StoredPolicy> {
  /** Stores a new policy, creating its workspace's row if need be. */
  readonly insert: (policy: P) => Effect.Effect<P, GatewayError.InternalError>
  readonly list: (workspaceId: string, status: Status) => Effect.Effect<ReadonlyArray<P>, GatewayError.InternalError>
  readonly get: (
    workspaceId: string,
    id: string,
    status: Status
  ) => Effect.Effect<P, GatewayError.NotFound | GatewayError.InternalError>
  /** Writes a changed policy (its `updateColumns`). */
  readonly write: (policy: P) => Effect.Effect<P, GatewayError.InternalError>
  /** Archives an active policy: kept, no longer enforced. */
  readonly archive: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<P, GatewayError.NotFound | GatewayError.InternalError>
  /** The active policies of a workspace, for the stage; read afresh at most once a second. */
  readonly active: (workspaceId: string) => Effect.Effect<ReadonlyArray<P>, GatewayError.InternalError>
  /** What `active` answers while its last read is under a second old at `now`; `undefined` when it must read. */
  readonly activeKept: (workspaceId: string, now: number) => ReadonlyArray<P> | undefined
}

/**
 * The active policies per workspace are kept a second: the stage reads them on every request, and
 * a change made on another replica is seen within that second (a change made here, at once).
 */
const ACTIVE_TTL_MS = 1_000
/** Workspaces whose active policies are kept; past it the least recently used is read again. */
const ACTIVE_CAPACITY = 10_000

/** A database failure is logged and answered as a 500 naming the kind of policy. */
const internal = (many: string) => <A>(effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError>) =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`${many}: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `${many}: ${error.message}` }))
    ))

export const make = <P extends StoredPolicy>(sql: SqlClient.SqlClient, kind: PolicyTable<P>): PolicyStore<P> => {
  const cache = new ShortLivedCache.ShortLivedCache<ReadonlyArray<P>>({
    capacity: ACTIVE_CAPACITY,
    ttlMs: ACTIVE_TTL_MS
  })
  const orInternal = internal(kind.noun.many)
  const table = sql(kind.table)
  const select = (workspaceId: string, status: Status, id?: string) =>
    orInternal(
      (id === undefined
        ? sql`SELECT * FROM ${table} WHERE workspace_id = ${workspaceId} AND status = ${status} ORDER BY created_at DESC, id`
        : sql`SELECT * FROM ${table} WHERE workspace_id = ${workspaceId} AND status = ${status} AND id = ${id}`)
        .pipe(Effect.flatMap(kind.decode))
    )
  const get = (workspaceId: string, id: string, status: Status) =>
    Effect.flatMap(select(workspaceId, status, id), ([found]) =>
      found === undefined
        ? Effect.fail(new GatewayError.NotFound({ message: `no ${status} ${kind.noun.one} ${id} in this workspace` }))
        : Effect.succeed(found))
  const write = (policy: P) =>
    orInternal(sql`UPDATE ${table} SET ${sql.update(kind.updateColumns(policy))} WHERE id = ${policy.id}`).pipe(
      Effect.tap(() => Effect.sync(() => cache.invalidate(policy.workspaceId))),
      Effect.as(policy)
    )
  return {
    insert: (policy) =>
      Effect.gen(function*() {
        const seconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        yield* orInternal(sql.withTransaction(Effect.andThen(
          sql`INSERT INTO workspaces (id, name, created_at) VALUES (${policy.workspaceId}, ${policy.workspaceId}, ${seconds}) ON CONFLICT (id) DO NOTHING`,
          sql`INSERT INTO ${table} ${sql.insert(kind.insertColumns(policy))}`
        )))
        cache.invalidate(policy.workspaceId)
        return policy
      }),
    list: (workspaceId, status) => select(workspaceId, status),
    get,
    write,
    archive: (workspaceId, id) =>
      Effect.gen(function*() {
        const found = yield* get(workspaceId, id, "active")
        return yield* write({ ...found, status: "archived", lastUpdatedAt: yield* Clock.currentTimeMillis })
      }),
    active: (workspaceId) => cache.through(workspaceId, () => select(workspaceId, "active")),
    activeKept: (workspaceId, now) => cache.peek(workspaceId, now)
  }
}
