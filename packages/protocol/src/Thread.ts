/**
 * Threads (extensions.md, "Assistants, threads and runs"): a conversation kept by the gateway,
 * created with its first messages and metadata.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int, isMaxItems } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"
import { Metadata } from "./Metadata.ts"
import { CreateThreadMessage } from "./ThreadMessage.ts"

/**
 * @example
 * import { Schema } from "effect"
 * import { Thread } from "@switchyard/protocol"
 * const isThread = Schema.is(Thread.Thread)
 *
 * @since 0.1.0
 */
export const Thread = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("thread"),
  created_at: Int,
  metadata: Metadata,
  tool_resources: Schema.NullOr(Schema.Struct({}))
})
/** @since 0.1.0 */
export type Thread = typeof Thread.Type

/** Body of `POST /v1/threads`: at most 32 first messages, as the common format allows. @since 0.1.0 */
export const CreateThread = closedStruct({
  messages: Schema.optionalKey(Schema.Array(CreateThreadMessage).check(isMaxItems(32))),
  metadata: Schema.optionalKey(Schema.NullOr(Metadata))
})
/** @since 0.1.0 */
export type CreateThread = typeof CreateThread.Type

/** Body of `POST /v1/threads/{thread_id}`. @since 0.1.0 */
export const ModifyThread = closedStruct({ metadata: Schema.optionalKey(Schema.NullOr(Metadata)) })
/** @since 0.1.0 */
export type ModifyThread = typeof ModifyThread.Type
