import { FileContents, FileStore } from "@switchyard/files"
import { Database, Migrations } from "@switchyard/storage"
import { Effect, Layer, Stream } from "effect"

// file objects in SQLite, their bytes as files in a directory (FileContents.layerSql keeps them in the database)
const FilesLive = (sqliteFile: string, directory: string) =>
  FileStore.FileStore.layer.pipe(
    Layer.provide(FileContents.layerDirectory(directory)),
    Layer.provide(Database.layerSqlite(sqliteFile))
  )
const lines = [
  { custom_id: "q1", method: "POST", url: "/v1/chat/completions", body: { model: "gpt-4o-mini", messages: [] } }
].map((line) => `${JSON.stringify(line)}\n`)
const uploadAndReadBack = Effect.gen(function*() {
  const files = yield* FileStore.FileStore
  // any stream of bytes: an HTTP body, a file on disk; it is written as it arrives, never held whole
  const file = yield* files.create(Migrations.DEFAULT_WORKSPACE_ID, {
    filename: "requests.jsonl",
    purpose: "batch",
    content: Stream.fromIterable(lines).pipe(Stream.encodeText),
    maxBytes: 1024 * 1024
  })
  const text = yield* (yield* files.content(Migrations.DEFAULT_WORKSPACE_ID, file.id)).pipe(
    Stream.decodeText,
    Stream.mkString
  )
  return { file, text }
})
// const { file, text } = await Effect.runPromise(uploadAndReadBack.pipe(Effect.provide(FilesLive("files.db", "files"))))
// README end

import type { FileObject } from "@switchyard/protocol"

/** The example, typed for the test. */
export const filesLive: (sqliteFile: string, directory: string) => Layer.Layer<FileStore.FileStore, unknown> = FilesLive
export const uploaded: Effect.Effect<
  { readonly file: FileObject.FileObject; readonly text: string },
  unknown,
  FileStore.FileStore
> = uploadAndReadBack
