/**
 * Assistants (extensions.md, "Assistants, threads and runs"): a model with its instructions and
 * function tools, which runs a thread through the gateway pipeline on any provider. The object
 * and its bodies follow the common assistants format, so its clients work unchanged.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Tool } from "./ChatTool.ts"
import { Int, isMaxChars, isMaxItems, isNonEmptyString, JsonObject, NumberBetween } from "./internal/Checks.ts"
import { closedStruct } from "./internal/Structs.ts"
import { Metadata } from "./Metadata.ts"

/** `response_format`: `auto`, or the chat completion's own object. @since 0.1.0 */
export const ResponseFormat = Schema.Union([Schema.Literal("auto"), JsonObject])

/** The tools of an assistant or a run: functions only, at most 128. @since 0.1.0 */
export const Tools = Schema.Array(Tool).check(isMaxItems(128))

/**
 * @example
 * import { Schema } from "effect"
 * import { Assistant } from "@switchyard/protocol"
 * const isAssistant = Schema.is(Assistant.Assistant)
 *
 * @since 0.1.0
 */
export const Assistant = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("assistant"),
  created_at: Int,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  model: Schema.String,
  instructions: Schema.NullOr(Schema.String),
  tools: Schema.Array(Tool),
  metadata: Metadata,
  temperature: Schema.NullOr(Schema.Number),
  top_p: Schema.NullOr(Schema.Number),
  response_format: ResponseFormat,
  /** The provider its runs use instead of the thread's (extensions.md); absent on older assistants. */
  provider: Schema.optionalKey(Schema.NullOr(Schema.String)),
  integration: Schema.optionalKey(Schema.NullOr(Schema.String)),
  /** A stored config's id; a config given inline is kept sealed (it may hold keys) and shown as null. */
  config: Schema.optionalKey(Schema.NullOr(Schema.String))
})
/** @since 0.1.0 */
export type Assistant = typeof Assistant.Type

/**
 * Where an assistant's runs go, instead of the provider the thread was created with: a provider
 * name (the key comes from the thread's `Authorization`), an integration's slug, or a config
 * (inline, or a stored one's `pc-…` id). At most one of `provider` and `integration`.
 *
 * @since 0.1.0
 */
export const AssistantProvider = {
  provider: Schema.optionalKey(Schema.NullOr(Schema.String.check(isNonEmptyString))),
  integration: Schema.optionalKey(Schema.NullOr(Schema.String.check(isNonEmptyString))),
  config: Schema.optionalKey(Schema.NullOr(Schema.Union([
    Schema.String.check(
      Schema.isStartingWith("pc-", { message: "must be a config object or a stored config id (pc-…)" })
    ),
    JsonObject
  ])))
}

const oneSelection = Schema.makeFilter((body: {
  readonly provider?: string | null
  readonly integration?: string | null
}) =>
  typeof body.provider === "string" && typeof body.integration === "string"
    ? { path: ["integration"], issue: "give provider or integration, not both" }
    : undefined
)

const fields = {
  name: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(256)))),
  description: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(512)))),
  instructions: Schema.optionalKey(Schema.NullOr(Schema.String.check(isMaxChars(256_000)))),
  tools: Schema.optionalKey(Tools),
  metadata: Schema.optionalKey(Schema.NullOr(Metadata)),
  temperature: Schema.optionalKey(Schema.NullOr(NumberBetween(0, 2))),
  top_p: Schema.optionalKey(Schema.NullOr(NumberBetween(0, 1))),
  response_format: Schema.optionalKey(Schema.NullOr(ResponseFormat))
}

/** Body of `POST /v1/assistants`; a misspelt field is a 400. @since 0.1.0 */
export const CreateAssistant = closedStruct({
  model: Schema.String.check(isNonEmptyString),
  ...fields,
  ...AssistantProvider
}).check(oneSelection)
/** @since 0.1.0 */
export type CreateAssistant = typeof CreateAssistant.Type

/** Body of `POST /v1/assistants/{assistant_id}`: the fields it sets change, the others stay. @since 0.1.0 */
export const ModifyAssistant = closedStruct({
  model: Schema.optionalKey(Schema.String.check(isNonEmptyString)),
  ...fields,
  ...AssistantProvider
}).check(oneSelection)
/** @since 0.1.0 */
export type ModifyAssistant = typeof ModifyAssistant.Type
