/**
 * Column codecs shared by the repositories: what SQLite and Postgres hand back differs (a BIGINT
 * arrives as a string from Postgres, as a number from SQLite), and rows are decoded at the
 * boundary like any other input.
 */
import { GatewayError } from "@switchyard/core"
import { Effect, Schema } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/** Unix seconds, from a number or a numeric string. */
export const Timestamp = Schema.Union([Schema.Finite, Schema.NumberFromString])

export const NullableTimestamp = Schema.NullOr(Timestamp)

/**
 * Makes sure a workspace row exists before an object is stored in it: workspaces come into being
 * with their first object (an admin key, or a JWT naming a workspace), and rows reference them.
 */
export const ensureWorkspace = (
  sql: SqlClient.SqlClient,
  workspaceId: string,
  now: number
): Effect.Effect<void, SqlError.SqlError> =>
  Effect.asVoid(
    sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspaceId}, ${workspaceId}, ${now}) ON CONFLICT (id) DO NOTHING`
  )

/** Storage and row-decoding failures are the gateway's own: a 500, with the cause logged. */
export const orInternal = (what: string) =>
<A, R>(
  effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
): Effect.Effect<A, GatewayError.InternalError, R> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`${what}: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `${what}: ${error.message}` }))
    ))
