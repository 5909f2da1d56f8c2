/**
 * Batches (interface 2.5) and the body that creates one (4.4).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int } from "./internal/Checks.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"
import { Metadata } from "./Metadata.ts"

/** Batch states (interface section 3). @since 0.1.0 */
export const BatchStatus = Schema.Literals([
  "validating",
  "failed",
  "in_progress",
  "finalizing",
  "completed",
  "expired",
  "cancelling",
  "cancelled"
])
/** @since 0.1.0 */
export type BatchStatus = typeof BatchStatus.Type

/** The endpoints a batch line may call. @since 0.1.0 */
export const BatchEndpoint = Schema.Literals(["/v1/chat/completions", "/v1/completions", "/v1/embeddings"])

/** A problem with one line of the input file (`line` is 1-based). @since 0.1.0 */
export const BatchLineError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  param: Schema.NullOr(Schema.String),
  line: Schema.NullOr(Int)
})

const moment = Schema.optionalKey(Schema.NullOr(Int))

/**
 * @example
 * import { Schema } from "effect"
 * import { Batch } from "@switchyard/protocol"
 * const isBatch = Schema.is(Batch.Batch)
 *
 * @since 0.1.0
 */
export const Batch = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("batch"),
  endpoint: Schema.String,
  input_file_id: Schema.String,
  completion_window: Schema.String,
  status: BatchStatus,
  created_at: Int,
  errors: Schema.optionalKey(Schema.NullOr(Schema.Struct({
    object: Schema.String,
    data: Schema.Array(BatchLineError)
  }))),
  output_file_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  error_file_id: Schema.optionalKey(Schema.NullOr(Schema.String)),
  in_progress_at: moment,
  expires_at: moment,
  finalizing_at: moment,
  completed_at: moment,
  failed_at: moment,
  expired_at: moment,
  cancelling_at: moment,
  cancelled_at: moment,
  request_counts: Schema.optionalKey(Schema.Struct({ total: Int, completed: Int, failed: Int })),
  metadata: Schema.optionalKey(Schema.NullOr(Metadata))
})
/** @since 0.1.0 */
export type Batch = typeof Batch.Type

/**
 * Body of `POST /v1/batches`. `immediate` starts at once (managed batching);
 * `24h` may be scheduled within the window.
 *
 * @since 0.1.0
 */
export const CreateBatch = Schema.Struct({
  input_file_id: Schema.String,
  completion_window: Schema.Literals(["immediate", "24h"]),
  endpoint: BatchEndpoint,
  metadata: Schema.optionalKey(Schema.NullOr(Metadata))
})
/** @since 0.1.0 */
export type CreateBatch = typeof CreateBatch.Type

/** @since 0.1.0 */
export const decodeCreate = decodeInput(CreateBatch)

/** @since 0.1.0 */
export const decodeCreateResult = decodeInputResult(CreateBatch)
