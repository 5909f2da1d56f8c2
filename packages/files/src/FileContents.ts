/**
 * Where the bytes of a file live. The embedded default keeps them on disk under the data dir, one
 * file per id; with Postgres they go to the `file_chunks` table (1 MiB rows), so every replica and
 * batch worker reads them over the connection it already has: no shared mount to configure, and
 * backups and deletion follow the database. (Large objects would need their own API and leave
 * orphans behind a plain `DELETE`.)
 *
 * @example
 * import { FileContents } from "@switchyard/files"
 * import { Effect, Stream } from "effect"
 *
 * const bytes = FileContents.FileContents.use((contents) =>
 *   contents.write("file-1", Stream.make(new TextEncoder().encode("{}\n")))
 * ).pipe(Effect.provide(FileContents.layerDirectory("./.switchyard/files")))
 */
import { GatewayError } from "@switchyard/core"
import { Context, Effect, Layer, Option, Schema, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { createReadStream } from "node:fs"
import { mkdir, open, readdir, rename, rm } from "node:fs/promises"
import { join } from "node:path"

export class FileContents extends Context.Service<FileContents, {
  /** Stores `content` under `id` and answers its length; a failed write leaves nothing behind. */
  readonly write: <E>(
    id: string,
    content: Stream.Stream<Uint8Array, E>
  ) => Effect.Effect<number, E | GatewayError.InternalError>
  /** The bytes stored under `id`, read as they are sent (never all in memory). */
  readonly read: (id: string) => Stream.Stream<Uint8Array, GatewayError.InternalError>
  /** Removes what is stored under `id`, a write cut off by a crash included. */
  readonly remove: (id: string) => Effect.Effect<void, GatewayError.InternalError>
  /** Every id something is stored under, whole or cut off (for `OrphanSweep`). */
  readonly stored: Effect.Effect<ReadonlySet<string>, GatewayError.InternalError>
}>()("@switchyard/files/FileContents") {}

const internal = (what: string) => (cause: unknown) =>
  new GatewayError.InternalError({ message: `files: ${what}: ${cause instanceof Error ? cause.message : cause}` })

const failed = <A, E, R>(
  effect: Effect.Effect<A, E | GatewayError.InternalError, R>
): Effect.Effect<A, E | GatewayError.InternalError, R> =>
  Effect.tapError(
    effect,
    (error) => error instanceof GatewayError.InternalError ? Effect.logError(error.message) : Effect.void
  )

const PARTIAL = ".partial"

/** Ids are the gateway's own (`file-` and base64url), so they are safe file names; anything else is refused. */
const SAFE_ID = /^[A-Za-z0-9_-]+$/

/** Contents as files in `directory` (created when missing), written to a temporary name and renamed. */
export const layerDirectory = (directory: string): Layer.Layer<FileContents> =>
  Layer.succeed(
    FileContents,
    FileContents.of({
      write: (id, content) =>
        failed(
          Effect.gen(function*() {
            if (!SAFE_ID.test(id)) return yield* Effect.fail(internal("write")(`unsafe file id ${id}`))
            const path = join(directory, id)
            const partial = `${path}${PARTIAL}`
            yield* Effect.tryPromise({ try: () => mkdir(directory, { recursive: true }), catch: internal("mkdir") })
            const handle = yield* Effect.acquireRelease(
              Effect.tryPromise({ try: () => open(partial, "w"), catch: internal("open") }),
              (file) => Effect.promise(() => file.close())
            )
            const bytes = yield* Stream.runFoldEffect(content, () => 0, (total, chunk: Uint8Array) =>
              Effect.tryPromise({
                try: () => handle.write(chunk).then(() => total + chunk.byteLength),
                catch: internal("write")
              }))
            yield* Effect.tryPromise({ try: () => handle.sync(), catch: internal("sync") })
            yield* Effect.tryPromise({ try: () => rename(partial, path), catch: internal("rename") })
            return bytes
          }).pipe(
            Effect.scoped,
            Effect.onError(() => Effect.promise(() => rm(join(directory, `${id}${PARTIAL}`), { force: true })))
          )
        ),
      read: (id) =>
        SAFE_ID.test(id)
          ? Stream.fromAsyncIterable<Uint8Array, GatewayError.InternalError>(
            createReadStream(join(directory, id)),
            internal("read")
          )
          : Stream.fail(internal("read")(`unsafe file id ${id}`)),
      remove: (id) =>
        SAFE_ID.test(id)
          ? Effect.tryPromise({
            try: () =>
              Promise.all([
                rm(join(directory, id), { force: true }),
                rm(join(directory, `${id}${PARTIAL}`), { force: true })
              ]),
            catch: internal("remove")
          }).pipe(Effect.asVoid)
          : Effect.void,
      stored: Effect.tryPromise({
        // no directory yet: nothing was ever written
        try: () =>
          readdir(directory).catch((error: NodeJS.ErrnoException) =>
            error.code === "ENOENT" ? [] : Promise.reject(error)
          ),
        catch: internal("list")
      }).pipe(Effect.map((names) =>
        new Set(
          names.map((name) => name.endsWith(PARTIAL) ? name.slice(0, -PARTIAL.length) : name).filter((id) =>
            SAFE_ID.test(id)
          )
        )
      ))
    })
  )

/** The size of one `file_chunks` row. */
export const CHUNK_BYTES = 1024 * 1024

const ChunkRow = Schema.Struct({ data: Schema.Uint8Array })
const decodeChunks = Schema.decodeUnknownEffect(Schema.Array(ChunkRow))
const decodeFileIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ file_id: Schema.String })))

const concat = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  const joined = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    joined.set(part, at)
    at += part.byteLength
  }
  return joined
}

/** Contents in the database's `file_chunks` table (the Postgres choice; works on SQLite too). */
export const layerSql: Layer.Layer<FileContents, never, SqlClient.SqlClient> = Layer.effect(
  FileContents,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const remove = (id: string) =>
      sql`DELETE FROM file_chunks WHERE file_id = ${id}`.pipe(Effect.asVoid, Effect.mapError(internal("remove")))
    const insert = (id: string, seq: number, data: Uint8Array) =>
      sql`INSERT INTO file_chunks ${sql.insert({ file_id: id, seq, data })}`.pipe(
        Effect.mapError(internal("write"))
      )
    const write = <E>(id: string, content: Stream.Stream<Uint8Array, E>) =>
      failed(
        Effect.gen(function*() {
          // parts are gathered into rows of CHUNK_BYTES: one INSERT per MiB, whatever the upload's own chunking
          const state = { parts: new Array<Uint8Array>(), pending: 0, seq: 0, total: 0 }
          const take = () => {
            const row = { seq: state.seq, data: concat(state.parts.splice(0), state.pending) }
            state.seq += 1
            state.pending = 0
            return row
          }
          yield* Stream.runForEach(content, (chunk: Uint8Array) => {
            const rows: Array<{ readonly seq: number; readonly data: Uint8Array }> = []
            let rest = chunk
            while (rest.byteLength > 0) {
              const piece = rest.subarray(0, CHUNK_BYTES - state.pending)
              state.parts.push(piece)
              state.pending += piece.byteLength
              state.total += piece.byteLength
              rest = rest.subarray(piece.byteLength)
              if (state.pending === CHUNK_BYTES) rows.push(take())
            }
            return Effect.forEach(rows, (row) => insert(id, row.seq, row.data), { discard: true })
          })
          if (state.pending > 0) {
            const last = take()
            yield* insert(id, last.seq, last.data)
          }
          return state.total
        }).pipe(Effect.onError(() => Effect.ignore(remove(id))))
      )
    const page = (id: string, seq: number) =>
      sql`SELECT data FROM file_chunks WHERE file_id = ${id} AND seq = ${seq}`.pipe(
        Effect.flatMap(decodeChunks),
        Effect.mapError(internal("read")),
        Effect.map((rows) => {
          const row = rows[0]
          return row === undefined
            ? [[], Option.none<number>()] as const
            : [[row.data], Option.some(seq + 1)] as const
        })
      )
    return FileContents.of({
      write,
      read: (id) => Stream.paginate(0, (seq: number) => page(id, seq)),
      remove,
      stored: sql`SELECT DISTINCT file_id FROM file_chunks`.pipe(
        Effect.flatMap(decodeFileIds),
        Effect.mapError(internal("list")),
        Effect.map((rows) => new Set(rows.map((row) => row.file_id)))
      )
    })
  })
)
