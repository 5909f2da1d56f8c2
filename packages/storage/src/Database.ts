/**
 * The database the apps use: Postgres when a database URL is given (several replicas), otherwise
 * a SQLite file in the data dir (one process). Either way the layer provides a migrated
 * `SqlClient` and the `Dialect` it speaks.
 *
 * @example
 * ```ts
 * import { Database } from "@switchyard/storage"
 * import { Config, Effect, Layer } from "effect"
 *
 * const DatabaseLive = Layer.unwrap(Effect.gen(function*() {
 *   const databaseUrl = yield* Config.option(Config.Redacted("DATABASE_URL"))
 *   return Database.layer({ databaseUrl, dataDir: "./.switchyard" })
 * }))
 * ```
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { type Migrator, SqlClient, SqlError } from "effect/sql"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import * as PgTypes from "./internal/pgTypes.ts"
import * as Migrations from "./Migrations.ts"
import * as SqliteClient from "./SqliteClient.ts"

export type DialectName = "sqlite" | "pg"

/**
 * Which SQL dialect the `SqlClient` speaks, for the rare query that must differ. Prefer portable
 * SQL; inside one statement, `sql.onDialectOrElse({ pg: …, orElse: … })` does the same.
 */
export class Dialect extends Context.Service<Dialect, { readonly name: DialectName }>()(
  "@switchyard/storage/Dialect"
) {
  static readonly sqlite: Layer.Layer<Dialect> = Layer.succeed(Dialect, Dialect.of({ name: "sqlite" }))
  static readonly pg: Layer.Layer<Dialect> = Layer.succeed(Dialect, Dialect.of({ name: "pg" }))
}

export type DatabaseError = SqlError.SqlError | Migrator.MigrationError

/** The file name of the SQLite database inside the data dir. */
export const SQLITE_FILE = "switchyard.db"

/** A migrated database from a client layer and its dialect: the migrations run while it is built. */
export const layerFromClient = (
  client: Layer.Layer<SqlClient.SqlClient, SqlError.SqlError>,
  dialect: Layer.Layer<Dialect>
): Layer.Layer<SqlClient.SqlClient | Dialect, DatabaseError> =>
  Layer.merge(Migrations.layer, dialect).pipe(Layer.provideMerge(client))

/** Postgres client options shared by the app and the tests: BIGINT comes back as a number. */
export const postgresOptions = (url: Redacted.Redacted): PgClient.PgPoolConfig => ({
  url,
  applicationName: "switchyard",
  types: PgTypes.makeRegistry()
})

/** The Postgres `SqlClient` alone, not migrated. */
export const postgresClient = (config: PgClient.PgPoolConfig): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, PgClient.make(config)).pipe(Layer.provide(Reactivity.layer))

/** A migrated Postgres database at `url` (`postgres://user:password@host:5432/db`). */
export const layerPostgres = (url: Redacted.Redacted): Layer.Layer<SqlClient.SqlClient | Dialect, DatabaseError> =>
  layerFromClient(postgresClient(postgresOptions(url)), Dialect.pg)

/** A migrated SQLite database in `filename` (`:memory:` for a private one); commits wait for the disk as `synchronous` says (default `full`). */
export const layerSqlite = (
  filename: string,
  synchronous?: SqliteClient.Synchronous
): Layer.Layer<SqlClient.SqlClient | Dialect, DatabaseError> =>
  layerFromClient(SqliteClient.layer({ filename, synchronous }), Dialect.sqlite)

const createDataDir = (dataDir: string) =>
  Effect.try({
    try: () => mkdirSync(dataDir, { recursive: true }),
    catch: (cause) =>
      new SqlError.SqlError({
        reason: new SqlError.ConnectionError({
          cause,
          message: `cannot create the data dir ${dataDir}`,
          operation: "open"
        })
      })
  })

export interface DatabaseOptions {
  /** Postgres when set; SQLite in `dataDir` otherwise. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  /** How SQLite's commits wait for the disk (`SqliteClient.SqliteClientConfig.synchronous`); default `full`. */
  readonly sqliteSynchronous?: SqliteClient.Synchronous | undefined
}

/** Postgres at `databaseUrl` when it is set, otherwise SQLite at `<dataDir>/switchyard.db` (the dir is created). */
export const layer = (options: DatabaseOptions): Layer.Layer<SqlClient.SqlClient | Dialect, DatabaseError> =>
  Option.match(options.databaseUrl, {
    onSome: layerPostgres,
    onNone: () =>
      Layer.unwrap(
        Effect.as(
          createDataDir(options.dataDir),
          layerSqlite(join(options.dataDir, SQLITE_FILE), options.sqliteSynchronous)
        )
      )
  })
