/**
 * The shape every assistants table shares: an object kept whole as JSON in `body`, its workspace,
 * the thread or run it belongs to, and a `position` that orders lists (seconds alone would tie).
 * Lists follow extensions.md's list rules: `limit`, `order`, `after`, `before`, `has_more`.
 */
import { GatewayError } from "@switchyard/core"
import type { ListQuery } from "@switchyard/protocol"
import { KeysetPage } from "@switchyard/storage"
import { Effect, Schema } from "effect"
import { type SqlClient, SqlError, type Statement } from "effect/sql"

export interface Table<A extends { readonly id: string }> {
  readonly name: "assistants" | "threads" | "thread_messages" | "thread_runs" | "run_steps"
  /** The column naming the object's owner, when it has one. */
  readonly parent: "thread_id" | "run_id" | undefined
  /** What a 404 calls the object. */
  readonly noun: string
  readonly schema: Schema.Codec<A, unknown>
}

export type Page<A> = KeysetPage.Page<A>

/** Where an object lives: its workspace and, for a message, run or step, its owner. */
export interface Scope {
  readonly workspaceId: string
  readonly parentId?: string | undefined
}

const Position = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Row = Schema.Struct({ id: Schema.String, position: Position, body: Schema.String })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

export type StoreFailure = GatewayError.NotFound | GatewayError.InternalError

/** A database or decoding failure is the gateway's own: logged, and a 500 to the caller. */
export const internal = <A, R>(
  effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
): Effect.Effect<A, GatewayError.InternalError, R> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`assistants: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `assistants: ${error.message}` }))
    ))

/** `effect` in one transaction; a failure of the transaction itself is the gateway's own. */
export const transaction = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | GatewayError.InternalError, R> =>
  Effect.catch(
    sql.withTransaction(effect),
    (error): Effect.Effect<never, E | GatewayError.InternalError> =>
      SqlError.isSqlError(error)
        ? Effect.andThen(
          Effect.logError(`assistants: ${error.message}`),
          Effect.fail(new GatewayError.InternalError({ message: `assistants: ${error.message}` }))
        )
        : Effect.fail(error)
  )

export const notFound = (noun: string, id: string) => new GatewayError.NotFound({ message: `no ${noun} ${id}` })

/** The typed operations on one table. */
export const make = <A extends { readonly id: string }>(sql: SqlClient.SqlClient, table: Table<A>) => {
  const json = Schema.fromJsonString(table.schema)
  const decodeBody = Schema.decodeUnknownEffect(json)
  const encodeBody = Schema.encodeEffect(json)
  const where = (scope: Scope): Statement.Fragment =>
    table.parent === undefined || scope.parentId === undefined
      ? sql`workspace_id = ${scope.workspaceId}`
      : sql`workspace_id = ${scope.workspaceId} AND ${sql(table.parent)} = ${scope.parentId}`

  const select = (condition: Statement.Fragment, tail: Statement.Fragment = sql``) =>
    internal(
      sql`SELECT id, position, body FROM ${sql(table.name)} WHERE ${condition} ${tail}`.pipe(
        Effect.flatMap(decodeRows)
      )
    )

  const find = (scope: Scope, id: string): Effect.Effect<A, StoreFailure> =>
    Effect.gen(function*() {
      const [row] = yield* select(sql`${where(scope)} AND id = ${id}`)
      if (row === undefined) return yield* notFound(table.noun, id)
      return yield* internal(decodeBody(row.body))
    })

  /** Writes a new object after every other of its scope; `columns` are the table's own extras. */
  const insert = (
    scope: Scope,
    value: A,
    createdAt: number,
    columns: Readonly<Record<string, string | number | null>> = {}
  ): Effect.Effect<A, GatewayError.InternalError> =>
    internal(Effect.gen(function*() {
      const body = yield* encodeBody(value)
      const [last] = yield* sql<{ readonly position: unknown }>`SELECT MAX(position) AS position
        FROM ${sql(table.name)} WHERE ${where(scope)}`
      const position = Number(last?.position ?? 0) + 1
      const parent = table.parent === undefined ? {} : { [table.parent]: scope.parentId ?? null }
      yield* sql`INSERT INTO ${sql(table.name)} ${
        sql.insert({
          id: value.id,
          workspace_id: scope.workspaceId,
          ...parent,
          position,
          created_at: createdAt,
          body,
          ...columns
        })
      }`
      return value
    }))

  /** Replaces the stored object (its id and scope stay). */
  const update = (
    scope: Scope,
    value: A,
    columns: Readonly<Record<string, string | number | null>> = {},
    condition: Statement.Fragment = sql`1 = 1`
  ): Effect.Effect<A, GatewayError.InternalError> =>
    internal(Effect.gen(function*() {
      const body = yield* encodeBody(value)
      yield* sql`UPDATE ${sql(table.name)} SET ${sql.update({ body, ...columns })}
        WHERE ${where(scope)} AND id = ${value.id} AND ${condition}`
      return value
    }))

  /** {@link update} that answers whether the row matched `condition` and was written. */
  const updateIf = (
    scope: Scope,
    value: A,
    columns: Readonly<Record<string, string | number | null>>,
    condition: Statement.Fragment
  ): Effect.Effect<boolean, GatewayError.InternalError> =>
    internal(Effect.gen(function*() {
      const body = yield* encodeBody(value)
      const written = yield* sql`UPDATE ${sql(table.name)} SET ${sql.update({ body, ...columns })}
        WHERE ${where(scope)} AND id = ${value.id} AND ${condition} RETURNING id`
      return written.length > 0
    }))

  const remove = (scope: Scope, id: string): Effect.Effect<void, GatewayError.InternalError> =>
    internal(sql`DELETE FROM ${sql(table.name)} WHERE ${where(scope)} AND id = ${id}`)

  const page = (
    scope: Scope,
    query: ListQuery.ListQuery,
    filter: Statement.Fragment = sql`1 = 1`
  ): Effect.Effect<Page<A>, GatewayError.InvalidRequest | GatewayError.InternalError> =>
    Effect.gen(function*() {
      const { hasMore, rows } = yield* KeysetPage.read({
        sql,
        query,
        at: (id) => Effect.map(select(sql`${where(scope)} AND id = ${id}`), ([row]) => row),
        rows: (cursor, order, limit) =>
          select(sql`${where(scope)} AND ${filter} AND ${cursor}`, sql`${order} LIMIT ${limit}`)
      }).pipe(
        Effect.catchTag("UnknownCursor", (cursor) =>
          Effect.fail(
            new GatewayError.InvalidRequest({ message: KeysetPage.cursorRule(cursor, table.noun), param: cursor.field })
          ))
      )
      const data = yield* Effect.forEach(rows, (row) => internal(decodeBody(row.body)))
      return KeysetPage.list(data, hasMore)
    })

  return { find, insert, update, updateIf, remove, page }
}
