/**
 * Thread messages (interface 2.3) and the bodies that create (4.5) and
 * modify (4.6) them.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Int } from "./internal/Checks.ts"
import { discriminatorAnnotation } from "./internal/Problem.ts"
import { decodeInput, decodeInputResult } from "./InvalidInput.ts"
import { Metadata } from "./Metadata.ts"

/** @since 0.1.0 */
export const ImageFileContent = Schema.Struct({
  type: Schema.Literal("image_file"),
  image_file: Schema.Struct({
    file_id: Schema.String,
    detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"]))
  })
})

/** @since 0.1.0 */
export const ImageUrlContent = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String, detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"])) })
})

/** Text as stored: the value and its annotations (file citations, paths). @since 0.1.0 */
export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.Struct({ value: Schema.String, annotations: Schema.Array(Schema.Unknown) })
})

/** @since 0.1.0 */
export const MessageContent = Schema.Union([ImageFileContent, ImageUrlContent, TextContent])
  .annotate({ [discriminatorAnnotation]: "type" })
/** @since 0.1.0 */
export type MessageContent = typeof MessageContent.Type

/** A file attached to a message and the tools it is given to. @since 0.1.0 */
export const Attachment = Schema.Struct({
  file_id: Schema.String,
  tools: Schema.optionalKey(Schema.Array(Schema.Struct({ type: Schema.String })))
})

/**
 * @example
 * import { Schema } from "effect"
 * import { ThreadMessage } from "@switchyard/protocol"
 * const isThreadMessage = Schema.is(ThreadMessage.ThreadMessage)
 *
 * @since 0.1.0
 */
export const ThreadMessage = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("thread.message"),
  created_at: Int,
  thread_id: Schema.String,
  status: Schema.Literals(["in_progress", "incomplete", "completed"]),
  incomplete_details: Schema.NullOr(Schema.Struct({ reason: Schema.String })),
  completed_at: Schema.NullOr(Int),
  incomplete_at: Schema.NullOr(Int),
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Array(MessageContent),
  assistant_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  attachments: Schema.NullOr(Schema.Array(Attachment)),
  metadata: Metadata
})
/** @since 0.1.0 */
export type ThreadMessage = typeof ThreadMessage.Type

/** A part of a message being created. @since 0.1.0 */
export const ContentInputPart = Schema.Union([
  ImageFileContent,
  ImageUrlContent,
  Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
]).annotate({ [discriminatorAnnotation]: "type", expected: "a content part object" })

/**
 * Body of `POST /v1/threads/{thread_id}/messages`. `content` is text; the
 * array of parts of the common assistants format is accepted as well.
 *
 * @since 0.1.0
 */
export const CreateThreadMessage = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.Union([Schema.String, Schema.Array(ContentInputPart)]),
  attachments: Schema.optionalKey(Schema.NullOr(Schema.Array(Attachment))),
  metadata: Schema.optionalKey(Schema.NullOr(Metadata))
})
/** @since 0.1.0 */
export type CreateThreadMessage = typeof CreateThreadMessage.Type

/** Body of `POST /v1/threads/{thread_id}/messages/{message_id}`. @since 0.1.0 */
export const ModifyThreadMessage = Schema.Struct({
  metadata: Schema.optionalKey(Schema.NullOr(Metadata))
})
/** @since 0.1.0 */
export type ModifyThreadMessage = typeof ModifyThreadMessage.Type

/** @since 0.1.0 */
export const decodeCreate = decodeInput(CreateThreadMessage)

/** @since 0.1.0 */
export const decodeCreateResult = decodeInputResult(CreateThreadMessage)

/** @since 0.1.0 */
export const decodeModify = decodeInput(ModifyThreadMessage)
