/**
 * The body of the legacy `POST /v1/completions`. Unknown members are kept and
 * forwarded, as for chat requests.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int, IntAtLeast, IntBetween, isNonEmptyString } from "./internal/Checks.ts"
import * as Fields from "./internal/GenerationFields.ts"
import { openStruct } from "./internal/Structs.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"

/** A prompt: text, texts, token ids, or lists of token ids. @since 0.1.0 */
export const Prompt = Schema.Union([
  Schema.String,
  Schema.Array(Schema.String),
  Schema.Array(Int),
  Schema.Array(Schema.Array(Int))
]).annotate({ expected: "a string, an array of strings, an array of token ids or an array of token id arrays" })

/**
 * The completion request body.
 *
 * @example
 * import { Schema } from "effect"
 * import { CompletionRequest } from "@switchyard/protocol"
 * const body = Schema.decodeUnknownSync(CompletionRequest.CompletionRequest)({ model: "m", prompt: "Say hi" })
 *
 * @since 0.1.0
 */
export const CompletionRequest = openStruct({
  model: Schema.String.check(isNonEmptyString),
  prompt: Prompt,
  suffix: Schema.optionalKey(Schema.NullOr(Schema.String)),
  // 0 is meaningful here: with `echo` it scores the prompt without generating.
  max_tokens: Schema.optionalKey(Schema.NullOr(IntAtLeast(0))),
  temperature: Fields.temperature,
  top_p: Fields.topP,
  n: Fields.n,
  stream: Fields.flag,
  stream_options: Fields.streamOptions,
  logprobs: Schema.optionalKey(Schema.NullOr(IntBetween(0, 5))),
  echo: Fields.flag,
  stop: Fields.stop,
  presence_penalty: Fields.penalty,
  frequency_penalty: Fields.penalty,
  best_of: Schema.optionalKey(Schema.NullOr(IntBetween(0, 20))),
  logit_bias: Fields.logitBias,
  seed: Fields.seed,
  user: Fields.user
}).check(Fields.streamOptionsRule)

/** @since 0.1.0 */
export type CompletionRequest = typeof CompletionRequest.Type

/** @since 0.1.0 */
export const decode = decodeInput(CompletionRequest)

/** @since 0.1.0 */
export const decodeResult = decodeInputResult(CompletionRequest)
