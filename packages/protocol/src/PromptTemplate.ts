/**
 * Bodies of the prompt template routes (extensions.md, "Prompt templates"; interface 4.2): a
 * prompt is a named, versioned chat `messages` array whose strings are Mustache templates, with
 * the model, provider and generation parameters it runs with. Definition bodies are closed (a
 * misspelt field is a 400); run bodies are open, because their root-level members are the chat
 * completion's hyperparameters.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ChatMessage } from "./ChatMessage.ts"
import { IntAtLeast, isMaxChars, isMinItems, isNonEmptyString, JsonObject } from "./internal/Checks.ts"
import { closedStruct, openStruct } from "./internal/Structs.ts"

const Name = Schema.String.check(isNonEmptyString, isMaxChars(255))

const Slug = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9_-]{0,62}$/, {
    message: "must be an integration slug: 1 to 63 lower-case letters, digits, - or _"
  })
)

const Provider = Schema.String.check(
  Schema.isPattern(/^(@[a-z0-9][a-z0-9_-]{0,62}|[a-z0-9][a-z0-9._-]*)$/, {
    message: "must be a short provider name such as openai, or an integration as @slug"
  })
)

/** Members a version's `parameters` may not set: the template, the model field and the caller's choice to stream. */
const reservedParameters = ["messages", "model", "stream", "stream_options"] as const

const Parameters = JsonObject.check(
  Schema.makeFilter((parameters: { readonly [key: string]: unknown }) => {
    const found = reservedParameters.find((key) => Object.hasOwn(parameters, key))
    return found === undefined ? undefined : {
      path: [found],
      issue: found === "model"
        ? "is not a parameter: set the prompt's own model field"
        : found === "messages"
        ? "is not a parameter: the template is the messages"
        : "is not a parameter: the caller chooses whether to stream"
    }
  })
)

/** A partial's name, as `{{> name}}` writes it. */
const PartialName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9_.-]{1,64}$/, { message: "must be 1 to 64 letters, digits, _, . or -" })
)

const definitionFields = {
  /** Chat messages; every string in them except `role` and `type` is a Mustache template. */
  template: Schema.Array(ChatMessage).check(isMinItems(1)),
  model: Schema.optionalKey(Schema.String.check(isNonEmptyString)),
  /** A short provider name (credentials from the caller's `Authorization`) or an integration `@slug`. */
  provider: Schema.optionalKey(Provider),
  /** An integration's slug: its stored credentials are used. */
  integration: Schema.optionalKey(Slug),
  /** Chat completion parameters the version runs with; a request's root-level ones override them. */
  parameters: Schema.optionalKey(Parameters),
  /** Mustache partials by name, for `{{> name}}`. */
  partials: Schema.optionalKey(Schema.Record(PartialName, Schema.String))
}

const oneProvider = Schema.makeFilter((definition: { readonly provider?: string; readonly integration?: string }) =>
  definition.provider !== undefined && definition.integration !== undefined
    ? { path: ["integration"], issue: "give either provider or integration, not both" }
    : undefined
)

/** What one version holds. @since 0.1.0 */
export const PromptDefinition = closedStruct(definitionFields).check(oneProvider)
/** @since 0.1.0 */
export type PromptDefinition = typeof PromptDefinition.Type

/** `POST /v1/prompts`: creates the prompt and its version 1, published. @since 0.1.0 */
export const CreatePrompt = closedStruct({ name: Name, ...definitionFields }).check(oneProvider)
/** @since 0.1.0 */
export type CreatePrompt = typeof CreatePrompt.Type

/** `POST /v1/prompts/{id}/versions`: a new version, complete in itself (nothing is taken from older ones). @since 0.1.0 */
export const CreatePromptVersion = PromptDefinition
/** @since 0.1.0 */
export type CreatePromptVersion = PromptDefinition

/** `PUT /v1/prompts/{id}/publish`. @since 0.1.0 */
export const PublishPrompt = closedStruct({ version: IntAtLeast(1) })
/** @since 0.1.0 */
export type PublishPrompt = typeof PublishPrompt.Type

/**
 * `POST /v1/prompts/{id}/render` and `…/completions`: `variables` for the template, `stream`, and
 * any chat completion parameter at the root, overriding the version's saved ones.
 *
 * @since 0.1.0
 */
export const RunPrompt = openStruct({ variables: JsonObject }).check(
  Schema.makeFilter((body: { readonly [key: string]: unknown }) =>
    Object.hasOwn(body, "messages")
      ? { path: ["messages"], issue: "is not accepted here: the prompt's template is the messages" }
      : undefined
  )
)
/** @since 0.1.0 */
export type RunPrompt = typeof RunPrompt.Type
