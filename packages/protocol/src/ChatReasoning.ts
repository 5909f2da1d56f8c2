/**
 * Reasoning (thinking) in the gateway's internal chat format. The chat format has no member for
 * it, so the provider adapters add these when a target is not held to strict vendor compliance
 * (`strict_vendor_compliance: false`, or the request header
 * `x-gateway-strict-vendor-compliance: false`), and the other client formats (Messages,
 * Responses) read them to give the model's reasoning back in their own shapes:
 *
 * - an answer's message: `reasoning_content` (the text; the Anthropic adapter calls it
 *   `reasoning`) and `content_blocks`, the provider's thinking blocks with their signatures;
 * - a stream chunk's delta: `reasoning_content` (or `reasoning`), and `content_blocks` holding
 *   `{ index, delta: { thinking } | { signature } }` fragments of the block at `index`, or
 *   `{ index, type: "redacted_thinking", data }` for a whole redacted block;
 * - a request's assistant message: `content_blocks` with the thinking blocks an earlier answer
 *   returned, sent back so that the provider can check their signatures.
 *
 * - an answer's choice (or a chunk's last choice): `stop_sequence`, the stop sequence that ended
 *   the answer when the provider names it (its `finish_reason` is then `stop`).
 *
 * Everything here is lenient: a member that does not fit is read as absent.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/** A complete thinking block with the signature that lets the provider check it later. @since 0.3.0 */
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalKey(Schema.String)
})
/** @since 0.3.0 */
export type ThinkingBlock = typeof ThinkingBlock.Type

/** Reasoning the provider returns encrypted. @since 0.3.0 */
export const RedactedThinkingBlock = Schema.Struct({ type: Schema.Literal("redacted_thinking"), data: Schema.String })
/** @since 0.3.0 */
export type RedactedThinkingBlock = typeof RedactedThinkingBlock.Type

/** @since 0.3.0 */
export const ReasoningBlock = Schema.Union([ThinkingBlock, RedactedThinkingBlock])
/** @since 0.3.0 */
export type ReasoningBlock = typeof ReasoningBlock.Type

/** A fragment of the reasoning block at `index` in a stream chunk's `content_blocks`. @since 0.3.0 */
export const BlockDelta = Schema.Union([
  Schema.Struct({
    index: Schema.Number,
    delta: Schema.Struct({ thinking: Schema.optionalKey(Schema.String), signature: Schema.optionalKey(Schema.String) })
  }),
  Schema.Struct({ index: Schema.Number, type: Schema.Literal("redacted_thinking"), data: Schema.String })
])
/** @since 0.3.0 */
export type BlockDelta = typeof BlockDelta.Type

const isReasoningBlock = Schema.is(ReasoningBlock)
const isBlockDelta = Schema.is(BlockDelta)

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const record = (value: unknown): Readonly<Record<string, unknown>> | undefined => isRecord(value) ? value : undefined

/**
 * The reasoning text of an answer's message or of a chunk's delta, if any.
 *
 * @example
 * import { ChatReasoning } from "@switchyard/protocol"
 * ChatReasoning.textOf({ content: "4", reasoning_content: "2 + 2" }) // "2 + 2"
 *
 * @since 0.3.0
 */
export const textOf = (messageOrDelta: unknown): string | undefined => {
  const value = record(messageOrDelta)
  const text = value?.reasoning_content ?? value?.reasoning
  return typeof text === "string" && text !== "" ? text : undefined
}

/**
 * The complete reasoning blocks of an answer's message (its `content_blocks`), in order.
 *
 * @example
 * import { ChatReasoning } from "@switchyard/protocol"
 * ChatReasoning.blocksOf({ content_blocks: [{ type: "thinking", thinking: "hm", signature: "s" }] })
 *
 * @since 0.3.0
 */
export const blocksOf = (message: unknown): ReadonlyArray<ReasoningBlock> => {
  const blocks = record(message)?.content_blocks
  return Array.isArray(blocks) ? blocks.filter(isReasoningBlock) : []
}

/**
 * The reasoning block fragments of a chunk's delta (its `content_blocks`), in order.
 *
 * @example
 * import { ChatReasoning } from "@switchyard/protocol"
 * ChatReasoning.blockDeltasOf({ content_blocks: [{ index: 0, delta: { signature: "s" } }] })
 *
 * @since 0.3.0
 */
export const blockDeltasOf = (delta: unknown): ReadonlyArray<BlockDelta> => {
  const blocks = record(delta)?.content_blocks
  return Array.isArray(blocks) ? blocks.filter(isBlockDelta) : []
}

/**
 * The stop sequence that ended an answer, from its choice, when the provider named it.
 *
 * @example
 * import { ChatReasoning } from "@switchyard/protocol"
 * ChatReasoning.stopSequenceOf({ index: 0, finish_reason: "stop", stop_sequence: "###" }) // "###"
 *
 * @since 0.3.0
 */
export const stopSequenceOf = (choice: unknown): string | undefined => {
  const value = record(choice)?.stop_sequence
  return typeof value === "string" ? value : undefined
}
