/**
 * A prompt's template: chat messages whose strings are Mustache templates, rendered with the
 * `mustache` library. Model text is never HTML-escaped. Before anything is rendered the template
 * is walked with the variables the way Mustache resolves names, so that a name the template uses
 * but the variables lack is a 400 naming it (Mustache itself would write nothing), and so that no
 * template can make the gateway write or loop without bound.
 *
 * @example
 * import { Template } from "@switchyard/prompts"
 * import { Effect } from "effect"
 * const messages = Template.render(
 *   { template: [{ role: "user", content: "Hello {{name}}" }] },
 *   { name: "Ada" }
 * ) // Effect succeeding with [{ role: "user", content: "Hello Ada" }]
 */
import { GatewayError } from "@switchyard/core"
import { Effect } from "effect"
import Mustache from "mustache"
import * as Tokens from "./internal/Tokens.ts"

/** The parts of a version that rendering reads. */
export interface Definition {
  readonly template: ReadonlyArray<unknown>
  readonly partials?: Readonly<Record<string, string>> | undefined
}

/** Rendering stops with a 400 past this many characters of output: a template cannot fill memory. */
export const MAX_RENDERED_CHARACTERS = 4 * 1024 * 1024
/** …or past this many tags visited, for sections nested over lists that write little. */
export const MAX_STEPS = 1_000_000
/** Partials may include partials (a tree can render itself), this deep at most. */
export const MAX_PARTIAL_DEPTH = 32

/** Members of a message whose strings are names, not text: never rendered. */
const LITERAL_KEYS = new Set(["role", "type"])

const invalid = (message: string, param: string | null) => new GatewayError.InvalidRequest({ message, param })

/**
 * Checks that every template string and partial parses, and that every partial the template names
 * is defined; the 400 names where (`template[0].content: unclosed section "items" at 12`).
 */
export const check = (definition: Definition): Effect.Effect<void, GatewayError.InvalidRequest> =>
  Effect.suspend(() => {
    const writer = new Mustache.Writer()
    const partials = definition.partials ?? {}
    for (const [name, text] of Object.entries(partials)) {
      const problem = parseProblem(writer, text) ?? undefinedPartial(writer, text, partials)
      if (problem !== undefined) return Effect.fail(invalid(`partials.${name}: ${problem}`, `partials.${name}`))
    }
    for (const [path, text] of templateStrings(definition.template, "template")) {
      const problem = parseProblem(writer, text) ?? undefinedPartial(writer, text, partials)
      if (problem !== undefined) return Effect.fail(invalid(`${path}: ${problem}`, path))
    }
    return Effect.void
  })

const parseProblem = (writer: Mustache.Writer, text: string): string | undefined => {
  try {
    Tokens.parse(writer, text)
    return undefined
  } catch (error) {
    return error instanceof Error
      ? `is not a valid Mustache template: ${error.message}`
      : "is not a valid Mustache template"
  }
}

const undefinedPartial = (
  writer: Mustache.Writer,
  text: string,
  partials: Readonly<Record<string, string>>
): string | undefined => {
  const missing = Tokens.partialNames(Tokens.parse(writer, text)).find((name) => !Object.hasOwn(partials, name))
  return missing === undefined ? undefined : `names the partial "${missing}", which the prompt's partials do not define`
}

/**
 * The template's messages with every template string rendered. A name the template uses that the
 * variables lack fails with a 400 naming its path (`variables.user.name`, `variables.items[1].sku`).
 */
export const render = (
  definition: Definition,
  variables: Readonly<Record<string, unknown>>
): Effect.Effect<Array<unknown>, GatewayError.InvalidRequest> =>
  Effect.suspend(() => {
    const writer = new Mustache.Writer()
    const view = Tokens.toView(variables)
    const partials = definition.partials ?? {}
    const budget: Tokens.Budget = { characters: MAX_RENDERED_CHARACTERS, steps: MAX_STEPS }
    const rendered = new Map<string, string>()
    for (const [path, text] of templateStrings(definition.template, "template")) {
      const problem = Tokens.walk(writer, Tokens.parse(writer, text), view, partials, budget, MAX_PARTIAL_DEPTH)
      if (problem !== undefined) return Effect.fail(invalid(`${path}: ${problem.message}`, problem.param))
      rendered.set(path, writer.render(text, view, partials, { escape }))
    }
    return Effect.succeed(
      definition.template.map((message, index) => replaceStrings(message, `template[${index}]`, rendered))
    )
  })

/** No HTML escaping: strings as they are, numbers and booleans as text, objects and lists as JSON. */
const escape = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)

/** Every template string of the messages, with its path. */
const templateStrings = (value: unknown, path: string): Array<readonly [string, string]> => {
  if (typeof value === "string") return [[path, value]]
  if (Array.isArray(value)) return value.flatMap((item, index) => templateStrings(item, `${path}[${index}]`))
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) =>
      LITERAL_KEYS.has(key) ? [] : templateStrings(item, `${path}.${key}`)
    )
  }
  return []
}

const replaceStrings = (value: unknown, path: string, rendered: ReadonlyMap<string, string>): unknown => {
  if (typeof value === "string") return rendered.get(path) ?? value
  if (Array.isArray(value)) return value.map((item, index) => replaceStrings(item, `${path}[${index}]`, rendered))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map((
        [key, item]
      ) => [key, LITERAL_KEYS.has(key) ? item : replaceStrings(item, `${path}.${key}`, rendered)])
    )
  }
  return value
}
