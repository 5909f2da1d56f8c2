/** Files and batches. */
import { FileObject, ListQuery } from "@switchyard/protocol"
import { Schema } from "effect"
import { json, listOf, type Operation, providerHeaders } from "./OperationShapes.ts"

export const operations: Readonly<Record<string, Operation>> = {
  "POST /v1/files": {
    tag: "Files",
    summary: "Upload a file",
    description: "Multipart: a file part `file` and the field `purpose` (`batch`). The upload is streamed to "
      + "storage; batch input must be JSONL (UTF-8, a line that is a JSON object), else 400 naming `file` and the "
      + "first bad line; past `GATEWAY_MAX_FILE_BYTES`, 413 and nothing is kept.",
    multipart: "UploadFile",
    answer: json("The file, with its id `file-…`.", "FileObject")
  },
  "GET /v1/files": {
    tag: "Files",
    summary: "List files",
    query: Schema.Struct({ ...ListQuery.ListQuery.fields, purpose: Schema.optionalKey(FileObject.FilePurpose) }),
    answer: listOf("files")
  },
  "GET /v1/files/:id": {
    tag: "Files",
    summary: "Get a file",
    answer: json("The file.", "FileObject")
  },
  "GET /v1/files/:id/content": {
    tag: "Files",
    summary: "Get a file's content",
    answer: { description: "The bytes as uploaded or written.", mediaType: "application/octet-stream" }
  },
  "DELETE /v1/files/:id": {
    tag: "Files",
    summary: "Delete a file",
    answer: json("`{id, object: \"file\", deleted: true}`.")
  },
  "POST /v1/batches": {
    tag: "Batches",
    summary: "Create a batch",
    description: "Answers `validating`; the lines run in a batch worker. The request's provider selection (a config, "
      + "a provider with its key, or a virtual key) is kept for the lines; none is a 400.",
    body: "CreateBatch",
    headers: providerHeaders,
    answer: json("The batch, with its id `batch_…`.", "Batch")
  },
  "GET /v1/batches": {
    tag: "Batches",
    summary: "List batches",
    query: ListQuery.ListQuery,
    answer: listOf("batches")
  },
  "GET /v1/batches/:batch_id": {
    tag: "Batches",
    summary: "Get a batch",
    answer: json("The batch, with its current `request_counts`.", "Batch")
  },
  "POST /v1/batches/:batch_id/cancel": {
    tag: "Batches",
    summary: "Cancel a batch",
    description: "`cancelling` at once, `cancelled` once its files are written; an ended batch is a 409.",
    errors: [409],
    answer: json("The batch.", "Batch")
  }
}
