import { assert, layer } from "@effect/vitest"
import { GatewayError } from "@switchyard/core"
import { FileContents, FileStore } from "@switchyard/files"
import type { ListQuery } from "@switchyard/protocol"
import { TestDatabase } from "@switchyard/storage/testing"
import { Effect, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const encoder = new TextEncoder()
const bytesOf = (...parts: ReadonlyArray<string>) => Stream.fromIterable(parts.map((part) => encoder.encode(part)))
const page = (query: Partial<ListQuery.ListQuery> = {}): ListQuery.ListQuery => ({ limit: 20, order: "desc", ...query })
const textOf = (stream: Stream.Stream<Uint8Array, GatewayError.InternalError>) =>
  stream.pipe(Stream.decodeText, Stream.mkString)

/** The tag of a failure, or the field a 400 names: a test then fails naming what came instead. */
const failureOf = (error: GatewayError.GatewayError) =>
  error instanceof GatewayError.InvalidRequest ? `400 ${error.param}: ${error.message}` : error._tag

const store = FileStore.FileStore.use(Effect.succeed)
const upload = (workspace: string, ...parts: ReadonlyArray<string>) =>
  Effect.flatMap(
    store,
    (files) => files.create(workspace, { filename: "in.jsonl", purpose: "batch", content: bytesOf(...parts) })
  )

const WS = "00000000-0000-4000-8000-000000000000"

/** A workspace of its own, so a test's list holds only its files. */
const workspace = (id: string) =>
  Effect.flatMap(
    SqlClient.SqlClient.use(Effect.succeed),
    (sql) => sql`INSERT INTO workspaces ${sql.insert({ id, name: id, created_at: 1 })}`.pipe(Effect.as(id))
  )

const suites = [
  ...TestDatabase.dialects.map(({ name, layer: database }) => ({
    name: `FileStore on ${name} with contents in file_chunks`,
    contents: FileContents.layerSql,
    database
  })),
  {
    name: "FileStore on sqlite with contents in a directory",
    contents: FileContents.layerDirectory(join(mkdtempSync(join(tmpdir(), "switchyard-files-")), "files")),
    database: TestDatabase.layerSqlite
  }
]

for (const { contents, database, name } of suites) {
  layer(FileStore.FileStore.layer.pipe(Layer.provideMerge(contents), Layer.provideMerge(database)))(name, (it) => {
    it.effect("keeps an upload's bytes across chunk boundaries and answers them back", () =>
      Effect.gen(function*() {
        const files = yield* store
        const file = yield* upload(WS, "{\"custom_id\":\"a\"}\n{\"cus", "tom_id\":\"b\"}\n")
        assert.strictEqual(file.bytes, 36)
        assert.deepStrictEqual([file.object, file.purpose, file.filename, file.status], [
          "file",
          "batch",
          "in.jsonl",
          "processed"
        ])
        assert.deepStrictEqual(yield* files.get(WS, file.id), file)
        assert.strictEqual(
          yield* textOf(yield* files.content(WS, file.id)),
          "{\"custom_id\":\"a\"}\n{\"custom_id\":\"b\"}\n"
        )
      }))

    it.effect("stores a file larger than one chunk row whole", () =>
      Effect.gen(function*() {
        const files = yield* store
        const line = `${JSON.stringify({ pad: "x".repeat(1000) })}\n`
        const text = line.repeat(Math.ceil((FileContents.CHUNK_BYTES * 2.5) / line.length))
        const file = yield* upload(WS, text.slice(0, 700_000), text.slice(700_000))
        assert.strictEqual(file.bytes, encoder.encode(text).byteLength)
        assert.isTrue((yield* textOf(yield* files.content(WS, file.id))) === text)
      }))

    it.effect("refuses a file past the limit with 413 and keeps nothing", () =>
      Effect.gen(function*() {
        const files = yield* store
        const error = yield* Effect.flip(
          files.create(WS, { filename: "big.jsonl", purpose: "batch", content: bytesOf("{}\n", "{}\n"), maxBytes: 4 })
        )
        assert.strictEqual(error._tag, "PayloadTooLarge")
        assert.deepStrictEqual((yield* files.list(WS, page())).data.filter((file) => file.filename === "big.jsonl"), [])
      }))

    it.effect("refuses batch input that is empty, has no JSON object line or is not UTF-8, naming file and the line", () =>
      Effect.gen(function*() {
        const bad = (...parts: ReadonlyArray<string>) => Effect.flip(upload(WS, ...parts)).pipe(Effect.map(failureOf))
        assert.strictEqual(yield* bad(), "400 file: file: is empty")
        assert.strictEqual(
          yield* bad("\n\n"),
          "400 file: file: has no line (a batch input file is JSONL: one JSON object per line)"
        )
        assert.strictEqual(
          yield* bad("\n[1]\nnot json\n"),
          "400 file: file: no line is a JSON object, line 2 the first (a batch input file is JSONL: one JSON object per line)"
        )
        // a JSONL file with a bad line is kept: the batch reports that line
        const mixed = yield* upload(WS, "{\"a\":1}\n[1]\n{\"b\":")
        assert.strictEqual(mixed.bytes, 17)
        const latin1 = Stream.make(new Uint8Array([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]))
        const error = yield* Effect.flip(
          Effect.flatMap(store, (files) => files.create(WS, { filename: "x", purpose: "batch", content: latin1 }))
        )
        assert.strictEqual(failureOf(error), "400 file: file: must be UTF-8 text (JSONL)")
      }))

    it.effect("lists newest first with pagination and a purpose filter", () =>
      Effect.gen(function*() {
        const files = yield* store
        const ws = yield* workspace("list-ws")
        const a = yield* upload(ws, "{}\n")
        const b = yield* upload(ws, "{}\n")
        const c = yield* files.create(ws, { filename: "out.jsonl", purpose: "batch_output", content: bytesOf("{}\n") })
        const first = yield* files.list(ws, page({ limit: 2 }))
        assert.deepStrictEqual([first.data.map((file) => file.id), first.has_more], [[c.id, b.id], true])
        const next = yield* files.list(ws, page({ limit: 2, after: b.id }))
        assert.deepStrictEqual([next.data.map((file) => file.id), next.has_more], [[a.id], false])
        const back = yield* files.list(ws, page({ limit: 1, before: a.id }))
        assert.deepStrictEqual(back.data.map((file) => file.id), [b.id])
        const inputs = yield* files.list(ws, page({ order: "asc" }), "batch")
        assert.deepStrictEqual(inputs.data.map((file) => file.id), [a.id, b.id])
        const unknown = yield* Effect.flip(files.list(ws, page({ after: "file-none" })))
        assert.strictEqual(failureOf(unknown), "400 after: after: no file file-none in this list")
      }))

    it.effect("keeps workspaces apart and deletes object and bytes", () =>
      Effect.gen(function*() {
        const files = yield* store
        const file = yield* upload(WS, "{}\n")
        assert.strictEqual((yield* Effect.flip(files.get("other-ws", file.id)))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(files.content("other-ws", file.id)))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(files.remove("other-ws", file.id)))._tag, "NotFound")
        assert.deepStrictEqual(yield* files.remove(WS, file.id), { id: file.id, object: "file", deleted: true })
        assert.strictEqual((yield* Effect.flip(files.get(WS, file.id)))._tag, "NotFound")
        assert.strictEqual((yield* Effect.flip(files.remove(WS, file.id)))._tag, "NotFound")
      }))
  })
}
