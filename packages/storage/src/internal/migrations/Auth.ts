/** The workspaces and the API keys that act in them (read by `@switchyard/auth`). */
import { Clock, Effect } from "effect"
import { SqlClient } from "effect/sql"

/** The workspace of the admin key and of everything created before workspaces are assigned. */
export const DEFAULT_WORKSPACE_ID = "00000000-0000-4000-8000-000000000000"

export const createWorkspaces = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`
  const createdAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  yield* sql`INSERT INTO workspaces ${sql.insert({ id: DEFAULT_WORKSPACE_ID, name: "Default", created_at: createdAt })}`
})

/** API keys, found by the hash of the key. */
export const createApiKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NULL,
    revoked_at BIGINT NULL,
    last_used_at BIGINT NULL
  )`
  yield* sql`CREATE INDEX api_keys_workspace_id ON api_keys (workspace_id)`
})
