/**
 * One page of a list (extensions.md's list rules: `limit`, `order`, `after`, `before`, answered
 * `{object: "list", data, first_id, last_id, has_more}`), read by keyset over a table's
 * `position, id` columns rather than by offset, so a page stays right while rows are added.
 *
 * @example
 * import { KeysetPage } from "@switchyard/storage"
 * // rows: (where, order, limit) => the table's rows under `where`, sorted by `order`, at most `limit`
 * // const { rows, hasMore } = yield* KeysetPage.read({ sql, query, at: (id) => find(id), rows })
 * // return KeysetPage.list(rows.map(toObject), hasMore)
 */
import { Data, Effect } from "effect"
import type { SqlClient, Statement } from "effect/sql"

/** The list query as the routes decode it. */
export interface Query {
  readonly limit: number
  readonly order: "asc" | "desc"
  readonly after?: string | undefined
  readonly before?: string | undefined
}

/** A row's place in its list. */
export interface Positioned {
  readonly id: string
  readonly position: number
}

export interface Page<A> {
  readonly object: "list"
  readonly data: ReadonlyArray<A>
  readonly first_id: string | null
  readonly last_id: string | null
  readonly has_more: boolean
}

/** `after` or `before` named an id that is not in the list. */
export class UnknownCursor extends Data.TaggedError("UnknownCursor")<{
  readonly field: "after" | "before"
  readonly id: string
}> {}

/**
 * The rows of the page, in the list's order, and whether more follow. `at` finds the cursor's
 * row in the list; `rows` reads the list's rows under `where`, sorted by `order`, at most
 * `limit`. `prefix` is the table's alias with its dot when the query joins (`"p."`).
 */
export const read = <R extends Positioned, E>(options: {
  readonly sql: SqlClient.SqlClient
  readonly query: Query
  readonly at: (id: string) => Effect.Effect<R | undefined, E>
  readonly rows: (
    where: Statement.Fragment,
    order: Statement.Fragment,
    limit: number
  ) => Effect.Effect<ReadonlyArray<R>, E>
  readonly prefix?: string
}): Effect.Effect<{ readonly rows: ReadonlyArray<R>; readonly hasMore: boolean }, E | UnknownCursor> =>
  Effect.gen(function*() {
    const { query, sql } = options
    const position = sql.unsafe(`${options.prefix ?? ""}position`)
    const id = sql.unsafe(`${options.prefix ?? ""}id`)
    const cursorId = query.after ?? query.before
    const field = query.after === undefined ? "before" : "after"
    let where: Statement.Fragment = sql`1 = 1`
    if (cursorId !== undefined) {
      const at = yield* options.at(cursorId)
      if (at === undefined) return yield* new UnknownCursor({ field, id: cursorId })
      // `after` continues in the list's order, `before` goes back against it
      const forward = (query.order === "desc") === (field === "after")
      where = forward
        ? sql`(${position} < ${at.position} OR (${position} = ${at.position} AND ${id} < ${at.id}))`
        : sql`(${position} > ${at.position} OR (${position} = ${at.position} AND ${id} > ${at.id}))`
    }
    // `before` reads outwards from the cursor, against the list's order, and is turned back
    const backwards = field === "before" && cursorId !== undefined
    const descending = backwards ? query.order === "asc" : query.order === "desc"
    const order = descending ? sql`ORDER BY ${position} DESC, ${id} DESC` : sql`ORDER BY ${position}, ${id}`
    const rows = yield* options.rows(where, order, query.limit + 1)
    const kept = rows.slice(0, query.limit)
    return { rows: backwards ? kept.reverse() : kept, hasMore: rows.length > query.limit }
  })

/** The rule a 400 states for an unknown cursor: `after: no file file-1 in this list`. */
export const cursorRule = (cursor: UnknownCursor, noun: string, container = "list"): string =>
  `${cursor.field}: no ${noun} ${cursor.id} in this ${container}`

/** The list answer of a page's objects. */
export const list = <A extends { readonly id: string }>(data: ReadonlyArray<A>, hasMore: boolean): Page<A> => ({
  object: "list",
  data,
  first_id: data[0]?.id ?? null,
  last_id: data.at(-1)?.id ?? null,
  has_more: hasMore
})
