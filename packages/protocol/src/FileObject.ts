/**
 * Files (extensions.md, "Files and batches"): what an upload answers, and the purposes a file
 * may have. Callers upload `batch` input; the gateway writes `batch_output` (output and error
 * files of a batch).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int } from "./internal/Checks.ts"

/** @since 0.1.0 */
export const FilePurpose = Schema.Literals(["batch", "batch_output"])
/** @since 0.1.0 */
export type FilePurpose = typeof FilePurpose.Type

/** The purposes a caller may upload with (`purpose` of `POST /v1/files`). @since 0.1.0 */
export const UploadPurpose = Schema.Literal("batch")

/**
 * @example
 * import { Schema } from "effect"
 * import { FileObject } from "@switchyard/protocol"
 * const isFile = Schema.is(FileObject.FileObject)
 *
 * @since 0.1.0
 */
export const FileObject = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("file"),
  bytes: Int,
  created_at: Int,
  filename: Schema.String,
  purpose: FilePurpose,
  status: Schema.Literal("processed"),
  expires_at: Schema.NullOr(Int)
})
/** @since 0.1.0 */
export type FileObject = typeof FileObject.Type

/** What `DELETE /v1/files/{id}` answers. @since 0.1.0 */
export const DeletedFile = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("file"),
  deleted: Schema.Literal(true)
})
/** @since 0.1.0 */
export type DeletedFile = typeof DeletedFile.Type
