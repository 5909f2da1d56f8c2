/** Integrations, virtual keys and saved configs (read by `@switchyard/provider-access`). */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Provider integrations, named by a slug unique in their workspace. */
export const createIntegrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE integrations (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    slug TEXT NOT NULL,
    provider TEXT NOT NULL,
    name TEXT NULL,
    credentials TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT NULL,
    UNIQUE (workspace_id, slug)
  )`
})

/** Virtual keys: provider credentials behind a key of their own. */
export const createVirtualKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE virtual_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    provider TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    credentials TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX virtual_keys_workspace_id ON virtual_keys (workspace_id)`
})

/** Saved configs, by id. */
export const createConfigs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE configs (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    config TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX configs_workspace_id ON configs (workspace_id)`
})
