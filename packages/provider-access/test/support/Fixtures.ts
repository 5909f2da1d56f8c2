/** Shared by the provider-access tests: the repositories over a test database, secrets to look for, fakes. */
import { assert } from "@effect/vitest"
import { ServerSecret } from "@switchyard/auth"
import {
  type GatewayRequest,
  GatewayResponse,
  type Principal,
  type ProviderRegistry,
  type ProviderTarget
} from "@switchyard/core"
import { type Integrations, ProviderAccess, type StoredConfigs, type VirtualKeys } from "@switchyard/provider-access"
import { type Database, Migrations } from "@switchyard/storage"
import { type TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"

export const DEFAULT_WORKSPACE = Migrations.DEFAULT_WORKSPACE_ID
/** A workspace with no row of its own until something is stored in it. */
export const OTHER_WORKSPACE = "ws-other"

export const SECRET_MATERIAL = "provider-access test secret"
export const serverSecret = ServerSecret.ServerSecret.layerSecret(SECRET_MATERIAL)

/** Integrations, virtual keys and stored configs over a database, with the SqlClient to look behind them. */
export const repositoriesOn = (
  database: TestDatabase.DialectUnderTest["layer"]
): Layer.Layer<
  | Integrations.Integrations
  | VirtualKeys.VirtualKeys
  | StoredConfigs.StoredConfigs
  | SqlClient.SqlClient
  | Database.Dialect
  | ServerSecret.ServerSecret,
  TestDatabase.TestDatabaseError
> => ProviderAccess.repositories.pipe(Layer.provideMerge(Layer.merge(database, serverSecret)))

// Secret values that must never come back from a repository, nor sit in the database in clear.
export const API_KEY = "sk-live-integration-0123456789abcd"
export const CLOUD_SECRET = "cloud1-secret-access-key-9876wxyz"
export const SESSION_TOKEN = "cloud1-session-token-55555tokn"
export const PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----MIIEvAIBADANBgkqhkiG9w0-----END PRIVATE KEY-----"
export const SERVICE_ACCOUNT = { type: "service_account", client_email: "sa@project.example", private_key: PRIVATE_KEY }
export const SECRETS = [API_KEY, CLOUD_SECRET, SESSION_TOKEN, PRIVATE_KEY] as const

/** Every provider field a stored credential may hold that is a secret, plus some that are not. */
export const cloudCredentials = {
  api_key: API_KEY,
  custom_host: "https://llm.internal.example/v1",
  cloud1_access_key_id: "AKIAEXAMPLE",
  cloud1_secret_access_key: CLOUD_SECRET,
  cloud1_session_token: SESSION_TOKEN,
  cloud1_region: "eu-west-1",
  cloud2_project_id: "project-1",
  cloud2_service_account_json: SERVICE_ACCOUNT
}

/** Fails the test when any of SECRETS occurs in the value's JSON. */
export const assertNoSecretIn = (value: unknown): void => {
  const text = JSON.stringify(value)
  for (const secret of SECRETS) assert.notInclude(text, secret)
}

/** The one value of a column of one row, read straight from the table. */
export const column = (table: "integrations" | "virtual_keys" | "configs", name: string, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<Record<string, unknown>>`SELECT ${sql(name)} AS value FROM ${sql(table)} WHERE id = ${id}`
    return rows[0]?.value
  })

/** Deletes a row behind the repository's back, as another replica would. */
export const deleteRow = (table: "integrations" | "virtual_keys" | "configs", id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM ${sql(table)} WHERE id = ${id}`
  })

export interface RecordingAdapter {
  readonly adapter: ProviderRegistry.ProviderAdapter
  /** The targets `make` was called with, in order. */
  readonly built: Array<ProviderTarget.ProviderTarget>
  /** The requests the built dispatches received, in order. */
  readonly received: Array<GatewayRequest.GatewayRequest>
}

/** A base adapter for the given names that records what it is built with and asked, and answers `{ ok: true }`. */
export const recordingAdapter = (names: ReadonlyArray<string>): RecordingAdapter => {
  const built: Array<ProviderTarget.ProviderTarget> = []
  const received: Array<GatewayRequest.GatewayRequest> = []
  const adapter: ProviderRegistry.ProviderAdapter = {
    names,
    make: (target) =>
      Effect.sync(() => {
        built.push(target)
        return (request) =>
          Effect.sync(() => {
            received.push(request)
            return GatewayResponse.json({ ok: true })
          })
      })
  }
  return { adapter, built, received }
}

export const principalIn = (workspaceId: string): Principal.Principal => ({
  keyId: "key_test",
  workspaceId,
  scopes: new Set(["completions"])
})

/** A chat request from a caller in the given workspace. */
export const requestFrom = (
  workspaceId: string,
  body: GatewayRequest.JsonObject = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }
): GatewayRequest.GatewayRequest => ({
  endpoint: "chat.completions",
  body,
  stream: false,
  context: {
    traceId: "0123456789abcdef0123456789abcdef",
    spanId: "0123456789abcdef",
    parentSpanId: undefined,
    spanName: undefined,
    metadata: {},
    principal: principalIn(workspaceId),
    headers: {},
    receivedAt: 0
  }
})
