/**
 * Content parts of chat messages: the array form of `content`. Which parts a
 * message may hold depends on its role, as in the chat format the gateway
 * follows. Parts keep unknown members (`cache_control` and other provider
 * extras are forwarded).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { discriminatorAnnotation } from "./internal/Problem.ts"
import { openStruct } from "./internal/Structs.ts"

/** @since 0.1.0 */
export const TextPart = openStruct({ type: Schema.Literal("text"), text: Schema.String })

/** @since 0.1.0 */
export const ImageUrlPart = openStruct({
  type: Schema.Literal("image_url"),
  image_url: openStruct({
    url: Schema.String,
    detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"]))
  })
})

/** @since 0.1.0 */
export const InputAudioPart = openStruct({
  type: Schema.Literal("input_audio"),
  input_audio: openStruct({ data: Schema.String, format: Schema.String })
})

/** @since 0.1.0 */
export const FilePart = openStruct({
  type: Schema.Literal("file"),
  file: openStruct({
    file_data: Schema.optionalKey(Schema.String),
    file_id: Schema.optionalKey(Schema.String),
    filename: Schema.optionalKey(Schema.String)
  })
})

/** @since 0.1.0 */
export const RefusalPart = openStruct({ type: Schema.Literal("refusal"), refusal: Schema.String })

const parts = <const Members extends ReadonlyArray<Schema.Top>>(members: Members) =>
  Schema.Union(members).annotate({ [discriminatorAnnotation]: "type", expected: "a content part object" })

/** Parts a `user` message may hold. @since 0.1.0 */
export const UserPart = parts([TextPart, ImageUrlPart, InputAudioPart, FilePart])
/** @since 0.1.0 */
export type UserPart = typeof UserPart.Type

/** Parts an `assistant` message may hold. @since 0.1.0 */
export const AssistantPart = parts([TextPart, RefusalPart])
/** @since 0.1.0 */
export type AssistantPart = typeof AssistantPart.Type

/** `system`, `developer` and `tool` messages hold text only. @since 0.1.0 */
export const TextOnlyPart = parts([TextPart])
/** @since 0.1.0 */
export type TextOnlyPart = typeof TextOnlyPart.Type
