/**
 * What crosses between JavaScript and node:sqlite: parameters going in, rows and errors coming out.
 */
import { Predicate } from "effect"
import { SqlError } from "effect/sql"
import type { SQLInputValue, SQLOutputValue } from "node:sqlite"

export type Row = Record<string, SQLOutputValue>

/** Why a parameter cannot be bound; thrown inside the statement's `try` so it becomes a SqlError. */
export class UnbindableValue extends Error {}

/** `ArrayBuffer.isView` is true exactly for typed arrays and DataViews, which SQLite stores as BLOBs. */
const isBinary = (value: unknown): value is NodeJS.ArrayBufferView => ArrayBuffer.isView(value)

/**
 * node:sqlite binds every JS number as a REAL (5 lands in a TEXT column as "5.0"), a `Date`
 * silently as NULL, and a plain object as named parameters. So whole numbers are bound as
 * INTEGER, booleans as 1/0, dates as ISO-8601 text, and any other object is refused.
 */
export const toSqliteValue = (value: unknown, index: number): SQLInputValue => {
  switch (typeof value) {
    case "number":
      return Number.isSafeInteger(value) ? BigInt(value) : value
    case "string":
    case "bigint":
      return value
    case "boolean":
      return value ? 1n : 0n
    case "undefined":
      return null
  }
  if (value === null || isBinary(value)) return value
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new UnbindableValue(`parameter ${index + 1}: invalid Date`)
    return value.toISOString()
  }
  throw new UnbindableValue(`parameter ${index + 1}: cannot bind a value of type ${typeof value}`)
}

export const toSqliteValues = (params: ReadonlyArray<unknown>): Array<SQLInputValue> => params.map(toSqliteValue)

/** Rows from node:sqlite have a null prototype; give callers ordinary objects. */
export const toPlainRows = (rows: ReadonlyArray<Row>): Array<Row> => rows.map((row) => ({ ...row }))

const sqliteMessage = (cause: unknown): string =>
  Predicate.hasProperty(cause, "message") && typeof cause.message === "string" ? cause.message : String(cause)

const SQLITE_CONSTRAINT_PRIMARYKEY = 1555
const SQLITE_CONSTRAINT_UNIQUE = 2067

/**
 * node:sqlite reports the extended result code as `errcode`; effect's classifier reads `errno`
 * (or a `SQLITE_*` `code`, which node:sqlite replaces with `ERR_SQLITE_ERROR`). A duplicate primary
 * key counts as a unique violation, as it does on Postgres.
 */
const withErrno = (cause: unknown): unknown => {
  if (!Predicate.hasProperty(cause, "errcode") || typeof cause.errcode !== "number") return cause
  const errno = cause.errcode === SQLITE_CONSTRAINT_PRIMARYKEY ? SQLITE_CONSTRAINT_UNIQUE : cause.errcode
  return { cause, errno, message: sqliteMessage(cause) }
}

/** Maps anything node:sqlite throws to a SqlError whose reason says what kind of failure it was. */
export const toSqlError = (cause: unknown, operation: string): SqlError.SqlError =>
  new SqlError.SqlError({
    reason: SqlError.classifySqliteError(withErrno(cause), {
      message: `SqliteClient: ${sqliteMessage(cause)}`,
      operation
    })
  })
