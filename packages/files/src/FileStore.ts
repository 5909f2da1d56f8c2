/**
 * Files per workspace: the file objects in the gateway's database (SQLite or Postgres), their bytes
 * in `FileContents`. An upload streams into storage as it arrives, bounded by a byte limit (413
 * past it), and batch input is checked as JSONL on the way. Another workspace's id is a 404.
 *
 * @example
 * import { FileStore } from "@switchyard/files"
 * import { Stream } from "effect"
 *
 * const file = FileStore.FileStore.use((store) =>
 *   store.create("my-workspace", {
 *     filename: "requests.jsonl",
 *     purpose: "batch",
 *     content: Stream.make(new TextEncoder().encode("{\"custom_id\":\"a\"}\n"))
 *   })
 * )
 */
import { GatewayError, RandomBytes } from "@switchyard/core"
import { FileObject, type ListQuery } from "@switchyard/protocol"
import { KeysetPage } from "@switchyard/storage"
import { Clock, Context, Effect, Layer, Schema, Stream } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { FileContents } from "./FileContents.ts"
import * as JsonLines from "./JsonLines.ts"

/** The largest upload unless the caller names another limit: the common batch API's own, 200 MiB. */
export const DEFAULT_MAX_BYTES = 200 * 1024 * 1024

/** Bytes written under a new id whose file object does not exist yet (its purpose may come later). */
export interface Staged {
  readonly id: string
  readonly bytes: number
  /** What is wrong with the bytes as JSONL, if anything (checked on the way in). */
  readonly problem: JsonLines.Problem | undefined
}

export interface Describe {
  readonly filename: string
  readonly purpose: FileObject.FilePurpose
}

export interface Upload<E> extends Describe {
  readonly content: Stream.Stream<Uint8Array, E>
  readonly maxBytes?: number | undefined
}

export type Page = KeysetPage.Page<FileObject.FileObject>

type Failure = GatewayError.NotFound | GatewayError.InternalError

export class FileStore extends Context.Service<FileStore, {
  /** Streams `content` into storage under a new id, at most `maxBytes` (else PayloadTooLarge, nothing kept). */
  readonly stage: <E>(
    content: Stream.Stream<Uint8Array, E>,
    maxBytes?: number
  ) => Effect.Effect<Staged, E | GatewayError.PayloadTooLarge | GatewayError.InternalError>
  /**
   * Makes staged bytes a file of the workspace. Batch input must be JSONL with at least one line
   * (400 naming `file` otherwise, and the bytes are dropped).
   */
  readonly commit: (
    workspaceId: string,
    staged: Staged,
    describe: Describe
  ) => Effect.Effect<FileObject.FileObject, GatewayError.InvalidRequest | GatewayError.InternalError>
  /** Drops staged bytes that will not become a file. */
  readonly discard: (staged: Staged) => Effect.Effect<void>
  /** `stage` then `commit`: a whole upload whose purpose is known up front. */
  readonly create: <E>(
    workspaceId: string,
    upload: Upload<E>
  ) => Effect.Effect<
    FileObject.FileObject,
    E | GatewayError.InvalidRequest | GatewayError.PayloadTooLarge | GatewayError.InternalError
  >
  readonly get: (workspaceId: string, id: string) => Effect.Effect<FileObject.FileObject, Failure>
  /** A page of the workspace's files, optionally of one purpose. */
  readonly list: (
    workspaceId: string,
    query: ListQuery.ListQuery,
    purpose?: FileObject.FilePurpose
  ) => Effect.Effect<Page, GatewayError.InvalidRequest | GatewayError.InternalError>
  /** The file's bytes; 404 for an unknown id or another workspace's. */
  readonly content: (
    workspaceId: string,
    id: string
  ) => Effect.Effect<Stream.Stream<Uint8Array, GatewayError.InternalError>, Failure>
  readonly remove: (workspaceId: string, id: string) => Effect.Effect<FileObject.DeletedFile, Failure>
}>()("@switchyard/files/FileStore") {
  /** The store on the `SqlClient` and the `FileContents` it is given. */
  static readonly layer: Layer.Layer<FileStore, never, SqlClient.SqlClient | FileContents> = Layer.effect(
    FileStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const contents = yield* FileContents
      return make(sql, contents)
    })
  )
}

/** A file id in the common format's style, time-ordered (`RandomBytes.timeOrderedHex`): the index on ids grows at its end. */
export const newId = (): string => `file-${RandomBytes.timeOrderedHex()}`

const Position = Schema.Union([Schema.Finite, Schema.NumberFromString])
const Row = Schema.Struct({ id: Schema.String, position: Position, body: Schema.fromJsonString(FileObject.FileObject) })
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))
const encodeBody = Schema.encodeEffect(Schema.fromJsonString(FileObject.FileObject))

const internal = <A, R>(
  effect: Effect.Effect<A, SqlError.SqlError | Schema.SchemaError, R>
): Effect.Effect<A, GatewayError.InternalError, R> =>
  Effect.catch(effect, (error) =>
    Effect.andThen(
      Effect.logError(`files: ${error.message}`),
      Effect.fail(new GatewayError.InternalError({ message: `files: ${error.message}` }))
    ))

const notFound = (id: string) => new GatewayError.NotFound({ message: `no file ${id}` })

const make = (sql: SqlClient.SqlClient, contents: FileContents["Service"]): FileStore["Service"] => {
  const select = (condition: Statement.Fragment, tail: Statement.Fragment = sql``) =>
    internal(sql`SELECT id, position, body FROM files WHERE ${condition} ${tail}`.pipe(Effect.flatMap(decodeRows)))

  const get = (workspaceId: string, id: string) =>
    Effect.flatMap(
      select(sql`workspace_id = ${workspaceId} AND id = ${id}`),
      ([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(row.body)
    )

  const discard = (staged: Staged) =>
    contents.remove(staged.id).pipe(Effect.ignore({ log: "Warn", message: `files: cannot drop ${staged.id}` }))

  const stage = <E>(content: Stream.Stream<Uint8Array, E>, maxBytes: number = DEFAULT_MAX_BYTES) =>
    Effect.gen(function*() {
      const id = newId()
      const checker = JsonLines.makeChecker()
      let seen = 0
      const bounded = Stream.mapEffect(content, (chunk: Uint8Array) => {
        seen += chunk.byteLength
        if (seen > maxBytes) return Effect.fail(new GatewayError.PayloadTooLarge({ limitBytes: maxBytes }))
        checker.push(chunk)
        return Effect.succeed(chunk)
      })
      const bytes = yield* contents.write(id, bounded)
      return { id, bytes, problem: checker.end() }
    })

  const commit = (workspaceId: string, staged: Staged, describe: Describe) =>
    Effect.gen(function*() {
      if (describe.purpose === "batch" && staged.problem !== undefined) {
        return yield* new GatewayError.InvalidRequest({
          message: staged.bytes === 0 ? "file: is empty" : JsonLines.describe(staged.problem),
          param: "file"
        })
      }
      const createdAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      const file: FileObject.FileObject = {
        id: staged.id,
        object: "file",
        bytes: staged.bytes,
        created_at: createdAt,
        filename: describe.filename,
        purpose: describe.purpose,
        status: "processed",
        expires_at: null
      }
      yield* internal(Effect.gen(function*() {
        const body = yield* encodeBody(file)
        const [last] = yield* sql<{ readonly position: unknown }>`SELECT MAX(position) AS position
          FROM files WHERE workspace_id = ${workspaceId}`
        const position = Number(last?.position ?? 0) + 1
        yield* sql`INSERT INTO files ${
          sql.insert({
            id: file.id,
            workspace_id: workspaceId,
            purpose: file.purpose,
            position,
            created_at: createdAt,
            body
          })
        }`
      }))
      return file
    }).pipe(Effect.tapError(() => discard(staged)))

  const list = (workspaceId: string, query: ListQuery.ListQuery, purpose?: FileObject.FilePurpose) =>
    Effect.gen(function*() {
      const scope = purpose === undefined
        ? sql`workspace_id = ${workspaceId}`
        : sql`workspace_id = ${workspaceId} AND purpose = ${purpose}`
      const { hasMore, rows } = yield* KeysetPage.read({
        sql,
        query,
        at: (id) => Effect.map(select(sql`${scope} AND id = ${id}`), ([row]) => row),
        rows: (cursor, order, limit) => select(sql`${scope} AND ${cursor}`, sql`${order} LIMIT ${limit}`)
      }).pipe(
        Effect.catchTag(
          "UnknownCursor",
          (cursor) =>
            Effect.fail(
              new GatewayError.InvalidRequest({ message: KeysetPage.cursorRule(cursor, "file"), param: cursor.field })
            )
        )
      )
      return KeysetPage.list(rows.map((row) => row.body), hasMore)
    })

  return FileStore.of({
    stage,
    commit,
    discard,
    create: (workspaceId, upload) =>
      Effect.flatMap(
        stage(upload.content, upload.maxBytes),
        (staged) => commit(workspaceId, staged, { filename: upload.filename, purpose: upload.purpose })
      ),
    get,
    list,
    content: (workspaceId, id) => Effect.map(get(workspaceId, id), () => contents.read(id)),
    remove: (workspaceId, id) =>
      Effect.gen(function*() {
        yield* get(workspaceId, id)
        yield* internal(sql`DELETE FROM files WHERE workspace_id = ${workspaceId} AND id = ${id}`)
        // the object goes first: a crash between the two leaves unreachable bytes, never a file without them
        yield* contents.remove(id)
        return { id, object: "file" as const, deleted: true as const }
      })
  })
}
