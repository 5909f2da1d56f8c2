/** Usage and rate limit policies and their shared counters (read by `@switchyard/usage-limits`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Usage limit and rate limit policies, and the counters usage limits are kept in. */
export const createUsageAndRateLimits = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE usage_limit_policies (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    organisation_id TEXT NOT NULL,
    name TEXT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    conditions TEXT NOT NULL,
    group_by TEXT NOT NULL,
    credit_limit DOUBLE PRECISION NOT NULL,
    alert_threshold DOUBLE PRECISION NULL,
    periodic_reset TEXT NULL,
    epoch INTEGER NOT NULL,
    reset_at BIGINT NULL,
    created_at BIGINT NOT NULL,
    last_updated_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX usage_limit_policies_workspace ON usage_limit_policies (workspace_id, status)`
  yield* sql`CREATE TABLE rate_limit_policies (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NULL,
    type TEXT NOT NULL,
    unit TEXT NOT NULL,
    value INTEGER NOT NULL,
    status TEXT NOT NULL,
    conditions TEXT NOT NULL,
    group_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_updated_at BIGINT NOT NULL
  )`
  yield* sql`CREATE INDEX rate_limit_policies_workspace ON rate_limit_policies (workspace_id, status)`
  yield* sql`CREATE TABLE usage_counters (
    counter_key TEXT PRIMARY KEY,
    policy_id TEXT NOT NULL,
    value_key TEXT NOT NULL,
    usage DOUBLE PRECISION NOT NULL,
    reserved DOUBLE PRECISION NOT NULL,
    alerted INTEGER NOT NULL
  )`
  yield* sql`CREATE INDEX usage_counters_policy ON usage_counters (policy_id)`
})

/**
 * One row per open reservation of the shared usage counters (`UsageCounters.layerSql`), with the
 * time its lease lapses: a reservation whose process died before settling is given back by the
 * next reservation on its counter instead of shrinking the budget until the period ends.
 */
export const createUsageReservations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE usage_reservations (
    counter_key TEXT NOT NULL,
    reservation_id TEXT NOT NULL,
    amount DOUBLE PRECISION NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (counter_key, reservation_id)
  )`
  yield* sql`CREATE INDEX usage_reservations_expiry ON usage_reservations (counter_key, expires_at)`
})
