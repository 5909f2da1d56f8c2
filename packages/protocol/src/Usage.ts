/**
 * Token usage as providers report it. Decoded leniently (extras such as
 * `cache_read_input_tokens` kept) because it comes from upstream.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { openStruct } from "./internal/Structs.ts"

const count = Schema.optionalKey(Schema.Number)

/**
 * @example
 * import { Schema } from "effect"
 * import { Usage } from "@switchyard/protocol"
 * const usage = Schema.decodeUnknownSync(Usage.Usage)({ prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 })
 *
 * @since 0.1.0
 */
export const Usage = openStruct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: Schema.Number,
  prompt_tokens_details: Schema.optionalKey(
    Schema.NullOr(openStruct({ cached_tokens: count, audio_tokens: count }))
  ),
  completion_tokens_details: Schema.optionalKey(
    Schema.NullOr(openStruct({
      reasoning_tokens: count,
      audio_tokens: count,
      accepted_prediction_tokens: count,
      rejected_prediction_tokens: count
    }))
  )
})

/** @since 0.1.0 */
export type Usage = typeof Usage.Type
