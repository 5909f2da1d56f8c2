/**
 * The body of `POST /v1/embeddings`. Unknown members are kept and forwarded.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int, IntAtLeast, isMinItems, isNonEmptyString } from "./internal/Checks.ts"
import { openStruct } from "./internal/Structs.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"

/** Text or token ids to embed; never empty. @since 0.1.0 */
export const EmbeddingInput = Schema.Union([
  Schema.String.check(isNonEmptyString),
  Schema.Array(Schema.String.check(isNonEmptyString)).check(isMinItems(1)),
  Schema.Array(Int).check(isMinItems(1)),
  Schema.Array(Schema.Array(Int).check(isMinItems(1))).check(isMinItems(1))
]).annotate({ expected: "a string, an array of strings, an array of token ids or an array of token id arrays" })

/**
 * The embedding request body.
 *
 * @example
 * import { Schema } from "effect"
 * import { EmbeddingRequest } from "@switchyard/protocol"
 * const body = Schema.decodeUnknownSync(EmbeddingRequest.EmbeddingRequest)({ model: "m", input: ["a", "b"] })
 *
 * @since 0.1.0
 */
export const EmbeddingRequest = openStruct({
  model: Schema.String.check(isNonEmptyString),
  input: EmbeddingInput,
  encoding_format: Schema.optionalKey(Schema.Literals(["float", "base64"])),
  dimensions: Schema.optionalKey(IntAtLeast(1)),
  user: Schema.optionalKey(Schema.String)
})

/** @since 0.1.0 */
export type EmbeddingRequest = typeof EmbeddingRequest.Type

/** @since 0.1.0 */
export const decode = decodeInput(EmbeddingRequest)

/** @since 0.1.0 */
export const decodeResult = decodeInputResult(EmbeddingRequest)
