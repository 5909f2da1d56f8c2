/**
 * Prompts and their versions, per workspace, in the gateway's database (SQLite or Postgres).
 * Version 1 is written with the prompt and published; later versions are appended, numbered by
 * the database so that concurrent writers never take the same number, and never change again.
 * Publishing moves the pointer the unsuffixed id runs.
 *
 * @example
 * import { PromptStore } from "@switchyard/prompts"
 * import { Effect } from "effect"
 * const created = PromptStore.PromptStore.use((prompts) =>
 *   prompts.create("my-workspace", { name: "greeting", model: "gpt-4o-mini", template: [{ role: "user", content: "Hi {{name}}" }] })
 * )
 */
import { GatewayError } from "@switchyard/core"
import { type ListQuery, PromptTemplate } from "@switchyard/protocol"
import { KeysetPage } from "@switchyard/storage"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import { checkParameters } from "./internal/Parameters.ts"
import * as Template from "./Template.ts"

/** One version, as the version routes answer it; its id is the reference that runs it (`pp-…@2`). */
export interface PromptVersion extends PromptTemplate.PromptDefinition {
  readonly id: string
  readonly object: "prompt_version"
  readonly prompt_id: string
  readonly version: number
  readonly published: boolean
  readonly created_at: number
}

/** A prompt with the definition of its published version. */
export interface Prompt extends PromptTemplate.PromptDefinition {
  readonly id: string
  readonly object: "prompt"
  readonly name: string
  readonly workspace_id: string
  readonly published_version: number
  readonly latest_version: number
  readonly created_at: number
  readonly updated_at: number
}

/** A page in the list shape (extensions.md: `limit`, `order`, `after`, `before`). */
export type Page<A> = KeysetPage.Page<A>

export type PromptPage = Page<Prompt>

/** Versions page by their number, not by position: `rows` as read, one past the limit. */
const pageOf = <A extends { readonly id: string }>(
  rows: ReadonlyArray<A>,
  limit: number,
  backwards: boolean
): Page<A> => {
  const kept = rows.slice(0, limit)
  return KeysetPage.list(backwards ? kept.reverse() : kept, rows.length > limit)
}

/** Which version a reference names: the published one, the latest, or a number. */
export type VersionSelector = "published" | "latest" | number

export interface PromptReference {
  readonly id: string
  readonly version: VersionSelector
}

const Seconds = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Version = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Definition = Schema.fromJsonString(PromptTemplate.PromptDefinition)

const PromptRow = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  name: Schema.String,
  latest_version: Version,
  published_version: Version,
  position: Version,
  created_at: Seconds,
  updated_at: Seconds,
  definition: Definition
})
const VersionRow = Schema.Struct({
  prompt_id: Schema.String,
  version: Version,
  definition: Definition,
  created_at: Seconds
})
const decodePromptRows = Schema.decodeUnknownEffect(Schema.Array(PromptRow))
const decodeVersionRows = Schema.decodeUnknownEffect(Schema.Array(VersionRow))
const encodeDefinition = Schema.encodeSync(Definition)

const toPrompt = (row: typeof PromptRow.Type): Prompt => ({
  ...row.definition,
  id: row.id,
  object: "prompt",
  name: row.name,
  workspace_id: row.workspace_id,
  published_version: row.published_version,
  latest_version: row.latest_version,
  created_at: row.created_at,
  updated_at: row.updated_at
})

const toVersion = (row: typeof VersionRow.Type, published: number): PromptVersion => ({
  ...row.definition,
  id: `${row.prompt_id}@${row.version}`,
  object: "prompt_version",
  prompt_id: row.prompt_id,
  version: row.version,
  published: row.version === published,
  created_at: row.created_at
})

const internal = <A>(effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError>) =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`prompts: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `prompts: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `prompt ${id} not found` })

/**
 * A reference as the completion route's path gives it: `pp-…` (the published version),
 * `pp-…@latest` or `pp-…@3`. A suffix of another form is a 400 naming it.
 */
export const parseReference = (reference: string): Effect.Effect<PromptReference, GatewayError.InvalidRequest> => {
  const at = reference.lastIndexOf("@")
  if (at === -1) return Effect.succeed({ id: reference, version: "published" })
  const id = reference.slice(0, at)
  const suffix = reference.slice(at + 1)
  if (suffix === "latest") return Effect.succeed({ id, version: "latest" })
  if (/^[1-9][0-9]{0,8}$/.test(suffix)) return Effect.succeed({ id, version: Number(suffix) })
  return Effect.fail(
    new GatewayError.InvalidRequest({
      message: `promptId: the version suffix must be @latest or @<version number> (got "@${suffix}")`,
      param: "promptId"
    })
  )
}

type Failure = GatewayError.NotFound | GatewayError.InternalError

export class PromptStore extends Context.Service<PromptStore, {
  /** Creates the prompt with its version 1, published. */
  readonly create: (
    workspaceId: string,
    body: PromptTemplate.CreatePrompt
  ) => Effect.Effect<Prompt, Failure | GatewayError.InvalidRequest>
  readonly get: (workspaceId: string, id: string) => Effect.Effect<Prompt, Failure>
  readonly list: (
    workspaceId: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<PromptPage, GatewayError.InvalidRequest | GatewayError.InternalError>
  /** Appends a version (the next number); it is not published. */
  readonly addVersion: (
    workspaceId: string,
    id: string,
    body: PromptTemplate.CreatePromptVersion
  ) => Effect.Effect<PromptVersion, Failure | GatewayError.InvalidRequest>
  /** A page of the versions (cursors are version ids, `pp-…@N`), newest first unless `order` says `asc`. */
  readonly versions: (
    workspaceId: string,
    id: string,
    query: ListQuery.ListQuery
  ) => Effect.Effect<Page<PromptVersion>, Failure | GatewayError.InvalidRequest>
  readonly publish: (
    workspaceId: string,
    id: string,
    version: number
  ) => Effect.Effect<Prompt, Failure | GatewayError.InvalidRequest>
  /** Deletes the prompt: every reference to it is a 404 from then on. */
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<Prompt, Failure>
  /** The version a reference names; an unknown prompt or version is a 404. */
  readonly resolve: (workspaceId: string, reference: PromptReference) => Effect.Effect<PromptVersion, Failure>
}>()("@switchyard/prompts/PromptStore") {
  static readonly layer: Layer.Layer<PromptStore, never, SqlClient.SqlClient> = Layer.effect(
    PromptStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const now = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      const selectPrompts = (where: Statement.Fragment, tail: Statement.Fragment = sql``) =>
        internal(
          sql`SELECT p.id, p.workspace_id, p.name, p.latest_version, p.published_version, p.position,
              p.created_at, p.updated_at, v.definition
            FROM prompts p JOIN prompt_versions v ON v.prompt_id = p.id AND v.version = p.published_version
            WHERE p.deleted_at IS NULL AND ${where} ${tail}`.pipe(Effect.flatMap(decodePromptRows))
        )

      const find = (workspaceId: string, id: string) =>
        Effect.flatMap(
          selectPrompts(sql`p.workspace_id = ${workspaceId} AND p.id = ${id}`),
          ([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(toPrompt(row))
        )

      const selectVersions = (promptId: string, where: Statement.Fragment, tail: Statement.Fragment = sql``) =>
        internal(
          sql`SELECT prompt_id, version, definition, created_at FROM prompt_versions
            WHERE prompt_id = ${promptId} AND ${where} ${tail}`.pipe(Effect.flatMap(decodeVersionRows))
        )

      /** The version number a version cursor names; another prompt's version or another form is a 400. */
      const versionCursor = (promptId: string, field: "after" | "before", cursor: string) => {
        const match = /^(.*)@([1-9][0-9]{0,8})$/.exec(cursor)
        return match !== null && match[1] === promptId
          ? Effect.succeed(Number(match[2]))
          : Effect.fail(
            new GatewayError.InvalidRequest({
              message: `${field}: must be a version id of this prompt, ${promptId}@<version> (got "${cursor}")`,
              param: field
            })
          )
      }

      const page = (workspaceId: string, query: ListQuery.ListQuery) =>
        Effect.gen(function*() {
          const { hasMore, rows } = yield* KeysetPage.read({
            sql,
            query,
            prefix: "p.",
            at: (id) =>
              Effect.map(selectPrompts(sql`p.workspace_id = ${workspaceId} AND p.id = ${id}`), ([row]) => row),
            rows: (cursor, order, limit) =>
              selectPrompts(sql`p.workspace_id = ${workspaceId} AND ${cursor}`, sql`${order} LIMIT ${limit}`)
          }).pipe(
            Effect.catchTag("UnknownCursor", (cursor) =>
              Effect.fail(
                new GatewayError.InvalidRequest({
                  message: KeysetPage.cursorRule(cursor, "prompt", "workspace"),
                  param: cursor.field
                })
              ))
          )
          return KeysetPage.list(rows.map(toPrompt), hasMore)
        })

      return PromptStore.of({
        create: (workspaceId, body) =>
          Effect.gen(function*() {
            const { name, ...definition } = body
            yield* Template.check(definition)
            yield* checkParameters(definition.parameters)
            const at = yield* now
            const id = `pp-${randomBytes(9).toString("hex")}`
            yield* internal(sql.withTransaction(Effect.gen(function*() {
              yield* sql`INSERT INTO workspaces (id, name, created_at) VALUES (${workspaceId}, ${workspaceId}, ${at})
                ON CONFLICT (id) DO NOTHING`
              // creation order within the workspace, which lists follow (seconds alone would tie)
              const [last] = yield* sql<{ readonly position: unknown }>`SELECT MAX(position) AS position
                FROM prompts WHERE workspace_id = ${workspaceId}`
              const position = Number(last?.position ?? 0) + 1
              yield* sql`INSERT INTO prompts ${
                sql.insert({
                  id,
                  workspace_id: workspaceId,
                  name,
                  latest_version: 1,
                  published_version: 1,
                  position,
                  created_at: at,
                  updated_at: at,
                  deleted_at: null
                })
              }`
              yield* sql`INSERT INTO prompt_versions ${
                sql.insert({ prompt_id: id, version: 1, definition: encodeDefinition(definition), created_at: at })
              }`
            })))
            return yield* find(workspaceId, id)
          }),
        get: find,
        list: page,
        addVersion: (workspaceId, id, body) =>
          Effect.gen(function*() {
            yield* Template.check(body)
            yield* checkParameters(body.parameters)
            const at = yield* now
            const created = yield* internal(sql.withTransaction(Effect.gen(function*() {
              // the row update takes the next number and locks the prompt until the version is written
              const numbered = yield* sql<{ readonly latest_version: unknown }>`UPDATE prompts
                SET latest_version = latest_version + 1, updated_at = ${at}
                WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL
                RETURNING latest_version`
              const version = Number(numbered[0]?.latest_version)
              if (numbered.length === 0 || !Number.isInteger(version)) return undefined
              yield* sql`INSERT INTO prompt_versions ${
                sql.insert({ prompt_id: id, version, definition: encodeDefinition(body), created_at: at })
              }`
              return version
            })))
            if (created === undefined) return yield* notFound(id)
            const prompt = yield* find(workspaceId, id)
            const [row] = yield* selectVersions(id, sql`version = ${created}`)
            if (row === undefined) return yield* notFound(`${id}@${created}`)
            return toVersion(row, prompt.published_version)
          }),
        versions: (workspaceId, id, query) =>
          Effect.gen(function*() {
            const prompt = yield* find(workspaceId, id)
            const backwards = query.after === undefined && query.before !== undefined
            let where: Statement.Fragment = sql`1 = 1`
            if (query.after !== undefined) {
              const at = yield* versionCursor(id, "after", query.after)
              where = query.order === "desc" ? sql`version < ${at}` : sql`version > ${at}`
            } else if (query.before !== undefined) {
              const at = yield* versionCursor(id, "before", query.before)
              where = query.order === "desc" ? sql`version > ${at}` : sql`version < ${at}`
            }
            // `before` reads against the list's order, from the cursor outwards, and is turned back
            const descending = (query.order === "desc") !== backwards
            const rows = yield* selectVersions(
              id,
              where,
              sql`ORDER BY version ${descending ? sql`DESC` : sql`ASC`} LIMIT ${query.limit + 1}`
            )
            return pageOf(rows.map((row) => toVersion(row, prompt.published_version)), query.limit, backwards)
          }),
        publish: (workspaceId, id, version) =>
          Effect.gen(function*() {
            const prompt = yield* find(workspaceId, id)
            if (version > prompt.latest_version) {
              return yield* new GatewayError.InvalidRequest({
                message: `version: prompt ${id} has no version ${version} (its latest is ${prompt.latest_version})`,
                param: "version"
              })
            }
            const at = yield* now
            yield* internal(
              sql`UPDATE prompts SET published_version = ${version}, updated_at = ${at}
                WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`
            )
            return yield* find(workspaceId, id)
          }),
        remove: (workspaceId, id) =>
          Effect.gen(function*() {
            const found = yield* find(workspaceId, id)
            const at = yield* now
            yield* internal(
              sql`UPDATE prompts SET deleted_at = ${at} WHERE id = ${id} AND workspace_id = ${workspaceId}`
            )
            return found
          }),
        resolve: (workspaceId, reference) =>
          Effect.gen(function*() {
            const prompt = yield* find(workspaceId, reference.id)
            const number = reference.version === "published"
              ? prompt.published_version
              : reference.version === "latest"
              ? prompt.latest_version
              : reference.version
            const [row] = yield* selectVersions(prompt.id, sql`version = ${number}`)
            if (row === undefined) {
              return yield* new GatewayError.NotFound({ message: `prompt ${prompt.id} has no version ${number}` })
            }
            return toVersion(row, prompt.published_version)
          })
      })
    })
  )
}
