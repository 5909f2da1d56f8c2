/**
 * Removes bytes that belong to no file: an upload cut off by a crash (`kill -9` mid-write, or
 * between its bytes and its file row) runs no finalizer and leaves a `.partial` file on disk or
 * `file_chunks` rows in the database. An upload in progress looks the same until it commits, so
 * only bytes found without a file at two passes `every` apart are removed: no upload lasts that
 * long (give `every` more than the longest an upload may take: the server uses several times its
 * headers and body timeouts). A process that is the only one writing (the embedded SQLite with its
 * data dir) removes every orphan at once when it starts, before it takes any upload.
 *
 * @example
 * import { OrphanSweep } from "@switchyard/files"
 *
 * // beside a FileContents and the database: sweeps at start-up and then every 15 minutes
 * const sweeper = OrphanSweep.layer({ every: "15 minutes", soleProcess: false })
 */
import type { GatewayError } from "@switchyard/core"
import { Duration, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { FileContents } from "./FileContents.ts"

/** How many ids are looked up per query. */
const LOOKUP_IDS = 500

const decodeIds = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ id: Schema.String })))

/** The ids stored in `contents` that have no file row. */
export const orphans: Effect.Effect<
  ReadonlySet<string>,
  GatewayError.InternalError | SqlError.SqlError | Schema.SchemaError,
  SqlClient.SqlClient | FileContents
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const stored = [...(yield* FileContents.use((contents) => contents.stored))]
  const found = new Set(stored)
  for (let at = 0; at < stored.length; at += LOOKUP_IDS) {
    const ids = stored.slice(at, at + LOOKUP_IDS)
    const rows = yield* sql`SELECT id FROM files WHERE id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodeIds))
    for (const row of rows) found.delete(row.id)
  }
  return found
})

/**
 * One pass: removes the orphans `remove` picks and answers the ones left, for the next pass to
 * judge. A failure is logged and the pass answers nothing (the next one starts again).
 */
export const pass = (
  remove: (id: string) => boolean
): Effect.Effect<ReadonlySet<string>, never, SqlClient.SqlClient | FileContents> =>
  Effect.gen(function*() {
    const found = yield* orphans
    const left = new Set<string>()
    for (const id of found) {
      if (!remove(id)) {
        left.add(id)
        continue
      }
      yield* FileContents.use((contents) => contents.remove(id))
    }
    const removed = found.size - left.size
    if (removed > 0) yield* Effect.logInfo(`files: removed the bytes of ${removed} upload(s) that never became a file`)
    return left
  }).pipe(
    Effect.catch((error) =>
      Effect.as(Effect.logWarning(`files: the sweep of unfinished uploads failed: ${error.message}`), new Set<string>())
    )
  )

/**
 * Sweeps while the layer lives: at start (everything, when `soleProcess`), then every `every`
 * what was an orphan at the previous pass too.
 */
export const layer = (options: {
  readonly every: Duration.Input
  readonly soleProcess: boolean
}): Layer.Layer<never, never, SqlClient.SqlClient | FileContents> =>
  Layer.effectDiscard(Effect.gen(function*() {
    let suspects = yield* pass(() => options.soleProcess)
    yield* Effect.forkScoped(Effect.forever(
      Effect.gen(function*() {
        yield* Effect.sleep(Duration.fromInputUnsafe(options.every))
        const previous = suspects
        suspects = yield* pass((id) => previous.has(id))
      })
    ))
  }))
