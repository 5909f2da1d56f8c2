import { Database } from "@switchyard/storage"
import { Config, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"

// DATABASE_URL=postgres://… for Postgres; without it SQLite in <dataDir>/switchyard.db
export const DatabaseLive = (dataDir: string) =>
  Layer.unwrap(Effect.gen(function*() {
    const databaseUrl = yield* Config.option(Config.Redacted("DATABASE_URL"))
    return Database.layer({ databaseUrl, dataDir })
  }))
const Workspace = Schema.Struct({ id: Schema.String, name: Schema.String, created_at: Schema.Number })
export const workspaces = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT id, name, created_at FROM workspaces`)
  .pipe(Effect.flatMap(Schema.decodeUnknownEffect(Schema.Array(Workspace))))
