/**
 * Mustache's parsed tokens, typed, and a walk over them that resolves names exactly as Mustache
 * does (mustache.js `Context.lookup` and `Writer.renderTokens`), to find the names the variables
 * lack and to bound the work before Mustache renders.
 */
import type Mustache from "mustache"

/** A parsed tag: its kind, its name (or text) and, for sections, the tags inside. */
export interface Token {
  readonly kind: string
  readonly value: string
  readonly children: ReadonlyArray<Token>
}

const toTokens = (raw: unknown): Array<Token> => {
  if (!Array.isArray(raw)) return []
  return raw.flatMap((item: unknown): Array<Token> => {
    if (!Array.isArray(item) || typeof item[0] !== "string" || typeof item[1] !== "string") return []
    return [{ kind: item[0], value: item[1], children: item[0] === "#" || item[0] === "^" ? toTokens(item[4]) : [] }]
  })
}

/** The template's tokens; throws Mustache's own error when it does not parse. */
export const parse = (writer: Mustache.Writer, template: string): ReadonlyArray<Token> =>
  toTokens(writer.parse(template))

/** The names of the partials the tokens include, sections included. */
export const partialNames = (tokens: ReadonlyArray<Token>): Array<string> =>
  tokens.flatMap((token) => token.kind === ">" ? [token.value] : partialNames(token.children))

/**
 * The variables as Mustache will see them: objects and lists without a prototype, so that a name
 * such as `constructor` or `map` is missing rather than found on Object or Array.
 */
export const toView = (value: unknown): unknown => {
  if (Array.isArray(value)) return Object.setPrototypeOf(value.map(toView), null)
  if (typeof value === "object" && value !== null) {
    const view: Record<string, unknown> = Object.create(null)
    for (const [key, item] of Object.entries(value)) view[key] = toView(item)
    return view
  }
  return value
}

/** What a render may still spend; shared by every string of one prompt. */
export interface Budget {
  characters: number
  steps: number
}

export interface Problem {
  readonly message: string
  readonly param: string | null
}

interface Frame {
  readonly view: unknown
  /** Where this view sits in the variables, for messages: `variables.items[1]`. */
  readonly path: string
}

interface Lookup {
  readonly found: boolean
  readonly value: unknown
  readonly path: string
}

const hasProperty = (target: unknown, name: string): boolean =>
  typeof target === "object" && target !== null && name in target

const primitiveHasOwn = (target: unknown, name: string): boolean =>
  target !== null && typeof target !== "object" && typeof target !== "function" && target !== undefined &&
  Object.hasOwn(Object(target), name)

const member = (target: unknown, name: string): unknown =>
  target === null || target === undefined ? undefined : Reflect.get(Object(target), name)

/** mustache.js `Context.lookup`: innermost view first; a dotted name resolves within the first view that holds it. */
const lookup = (stack: ReadonlyArray<Frame>, name: string): Lookup => {
  const top = stack[stack.length - 1]
  if (name === ".") return { found: true, value: top?.view, path: top?.path ?? "variables" }
  const names = name.split(".")
  for (let index = stack.length - 1; index >= 0; index--) {
    const frame = stack[index]
    if (frame === undefined) continue
    if (name.indexOf(".") > 0) {
      let value: unknown = frame.view
      let hit = false
      for (let at = 0; value !== null && value !== undefined && at < names.length; at++) {
        const segment = names[at] ?? ""
        if (at === names.length - 1) hit = hasProperty(value, segment) || primitiveHasOwn(value, segment)
        value = member(value, segment)
      }
      if (hit) return { found: true, value, path: `${frame.path}.${name}` }
    } else if (hasProperty(frame.view, name)) {
      return { found: true, value: member(frame.view, name), path: `${frame.path}.${name}` }
    }
  }
  return { found: false, value: undefined, path: `${top?.path ?? "variables"}.${name}` }
}

const tooManySteps: Problem = {
  message: "takes too many steps to render (sections nested over long lists)",
  param: null
}

const missing = (path: string): Problem => ({
  message: `needs ${path}, which the request does not give`,
  param: path
})

const textLength = (value: unknown): number =>
  typeof value === "string"
    ? value.length
    : typeof value === "object"
    ? JSON.stringify(value).length
    : String(value).length

/**
 * Walks the tokens with the variables as Mustache renders them; the first missing name, an
 * object written with `{{{…}}}` / `{{&…}}`, or a render over budget is the problem returned.
 */
export const walk = (
  writer: Mustache.Writer,
  tokens: ReadonlyArray<Token>,
  view: unknown,
  partials: Readonly<Record<string, string>>,
  budget: Budget,
  maxPartialDepth: number
): Problem | undefined => {
  const visit = (tokens: ReadonlyArray<Token>, stack: ReadonlyArray<Frame>, depth: number): Problem | undefined => {
    for (const token of tokens) {
      if (--budget.steps < 0) return tooManySteps
      const problem = visitOne(token, stack, depth)
      if (problem !== undefined) return problem
      if (budget.characters < 0) {
        return { message: "renders to more text than a prompt may hold", param: null }
      }
    }
    return undefined
  }
  const visitOne = (token: Token, stack: ReadonlyArray<Frame>, depth: number): Problem | undefined => {
    switch (token.kind) {
      case "text":
        budget.characters -= token.value.length
        return undefined
      case "name":
      case "&": {
        const found = lookup(stack, token.value)
        if (!found.found) return missing(found.path)
        if (token.kind === "&" && typeof found.value === "object" && found.value !== null) {
          return {
            message: `writes ${found.path}, an object or list, with {{{…}}} or {{&…}}: write {{${token.value}}} ` +
              "(written as JSON, never HTML-escaped) or iterate over it with a section",
            param: found.path
          }
        }
        if (found.value !== null && found.value !== undefined) budget.characters -= textLength(found.value)
        return undefined
      }
      case "#": {
        const found = lookup(stack, token.value)
        if (!found.found) return missing(found.path)
        const value = found.value
        if (!value) return undefined
        if (Array.isArray(value)) {
          // a view's lists have no prototype (see toView): indexed, not iterated
          for (let index = 0; index < value.length; index++) {
            if (--budget.steps < 0) return tooManySteps
            const item: unknown = value[index]
            const problem = visit(token.children, [...stack, { view: item, path: `${found.path}[${index}]` }], depth)
            if (problem !== undefined) return problem
          }
          return undefined
        }
        return typeof value === "object" || typeof value === "string" || typeof value === "number"
          ? visit(token.children, [...stack, { view: value, path: found.path }], depth)
          : visit(token.children, stack, depth)
      }
      case "^": {
        const found = lookup(stack, token.value)
        if (!found.found) return missing(found.path)
        const empty = !found.value || (Array.isArray(found.value) && found.value.length === 0)
        return empty ? visit(token.children, stack, depth) : undefined
      }
      case ">": {
        const partial = partials[token.value]
        if (partial === undefined) return undefined
        if (depth >= maxPartialDepth) {
          return { message: `includes partials more than ${maxPartialDepth} levels deep`, param: null }
        }
        return visit(parse(writer, partial), stack, depth + 1)
      }
      default:
        return undefined
    }
  }
  return visit(tokens, [{ view, path: "variables" }], 0)
}
