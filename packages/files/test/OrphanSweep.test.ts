import { assert, layer } from "@effect/vitest"
import { FileContents, FileStore, OrphanSweep } from "@switchyard/files"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const WS = "00000000-0000-4000-8000-000000000000"
const encoder = new TextEncoder()

/** What a process killed mid-upload leaves, written the way each kind of contents writes it. */
type Leftover = (id: string) => Effect.Effect<void, unknown, SqlClient.SqlClient>

const chunkRows: Leftover = (id) =>
  SqlClient.SqlClient.use((sql) =>
    sql`INSERT INTO file_chunks ${sql.insert([{ file_id: id, seq: 0, data: encoder.encode("{\"custom_id\"") }])}`
  )

const directoryFile = (directory: string, suffix: string): Leftover => (id) =>
  Effect.sync(() => {
    mkdirSync(directory, { recursive: true })
    writeFileSync(join(directory, `${id}${suffix}`), "{\"custom_id\"")
  })

const suites = (() => {
  const directory = join(mkdtempSync(join(tmpdir(), "switchyard-sweep-")), "files")
  return [
    ...TestDatabase.dialects.map(({ name, layer: database }) => ({
      name: `OrphanSweep on ${name} with contents in file_chunks`,
      contents: FileContents.layerSql,
      database,
      // a write cut off between two 1 MiB rows
      cutOff: chunkRows,
      // all rows written, then killed before the file row
      uncommitted: chunkRows
    })),
    {
      name: "OrphanSweep on sqlite with contents in a directory",
      contents: FileContents.layerDirectory(directory),
      database: TestDatabase.layerSqlite,
      cutOff: directoryFile(directory, ".partial"),
      uncommitted: directoryFile(directory, "")
    }
  ]
})()

const stored = FileContents.FileContents.use((contents) => contents.stored)

/**
 * Waits (in real time) until `id` is gone: a pass the test clock started does real I/O (a query,
 * a directory read) before it removes anything. Answers whether it went.
 */
const gone = (id: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (!(yield* stored).has(id)) return true
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
    return false
  })

for (const { contents, cutOff, database, name, uncommitted } of suites) {
  layer(FileStore.FileStore.layer.pipe(Layer.provideMerge(contents), Layer.provideMerge(database)))(name, (it) => {
    it.effect("a process that writes alone removes every orphan when it starts, and no file", () =>
      Effect.gen(function*() {
        const file = yield* FileStore.FileStore.use((files) =>
          files.create(WS, {
            filename: "kept.jsonl",
            purpose: "batch",
            content: Stream.make(encoder.encode("{\"custom_id\":\"a\"}\n"))
          })
        )
        yield* cutOff("file-cut-off-at-start")
        yield* uncommitted("file-uncommitted-at-start")
        assert.isTrue((yield* stored).has("file-cut-off-at-start"))
        yield* Layer.build(OrphanSweep.layer({ every: "15 minutes", soleProcess: true })).pipe(Effect.scoped)
        const left = yield* stored
        assert.deepStrictEqual(
          [left.has("file-cut-off-at-start"), left.has("file-uncommitted-at-start"), left.has(file.id)],
          [false, false, true]
        )
        const content = yield* FileStore.FileStore.use((files) => files.content(WS, file.id))
        assert.strictEqual(yield* content.pipe(Stream.decodeText, Stream.mkString), "{\"custom_id\":\"a\"}\n")
      }))

    it.effect("shared by processes: removes only what had no file at two passes `every` apart", () =>
      Effect.scoped(Effect.gen(function*() {
        yield* cutOff("file-dead")
        yield* Layer.build(OrphanSweep.layer({ every: "15 minutes", soleProcess: false }))
        // another process may be writing it: the first pass only notes it
        assert.isTrue((yield* stored).has("file-dead"))
        // an upload that starts after that pass
        yield* uncommitted("file-young")
        // nothing is removed before the next pass is due
        yield* TestClock.adjust("14 minutes")
        assert.isFalse(yield* gone("file-dead"))
        yield* TestClock.adjust("1 minute")
        assert.isTrue(yield* gone("file-dead"))
        assert.isTrue((yield* stored).has("file-young"))
        yield* TestClock.adjust("15 minutes")
        assert.isTrue(yield* gone("file-young"))
      })))
  })
}
