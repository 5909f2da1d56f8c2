/**
 * Turns a schema issue tree into the one problem a 400 answer reports: where
 * (a path of keys and indexes) and which rule was broken, in plain words.
 * It walks `SchemaIssue` nodes and reads the `message` / `expected`
 * annotations the schemas carry; it never parses Effect's formatted strings.
 */
import type { SchemaAST } from "effect"
import { SchemaIssue } from "effect"

export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  /** The input had the wrong type (rather than a wrong value): a weaker hint when choosing among variants. */
  readonly mismatch?: boolean
}

/**
 * Annotation naming the member that tells union variants apart (`role` for
 * chat messages, `type` for content parts). When no variant matches, the
 * problem is reported at that member rather than at the whole object.
 */
export const discriminatorAnnotation = "switchyard/discriminator"

export const firstProblem = (issue: SchemaIssue.Issue): Problem => walk(issue, [])

const walk = (issue: SchemaIssue.Issue, path: ReadonlyArray<PropertyKey>): Problem => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...issue.path])
    case "Encoding":
      return walk(issue.issue, path)
    case "Composite":
      return walk(issue.issues[0], path)
    case "Filter": {
      const message = issue.filter.annotations?.message
      if (typeof message === "string") return { path, message: withNumber(message, issue) }
      return walk(issue.issue, path)
    }
    case "AnyOf":
      return anyOf(issue, path)
    case "InvalidType":
      return { path, message: `must be ${describe(issue.ast)} (got ${kindOf(issue)})`, mismatch: true }
    case "InvalidValue": {
      const message = issue.annotations?.message
      return { path, message: typeof message === "string" ? withNumber(message, issue) : "is not valid" }
    }
    case "MissingKey":
      return { path, message: issue.annotations?.messageMissingKey ?? "is required" }
    case "UnexpectedKey":
      return { path, message: "unknown field" }
    case "Forbidden":
      return { path, message: issue.annotations?.message ?? "cannot be decoded synchronously" }
    case "OneOf":
      return { path, message: "matches more than one allowed shape" }
  }
}

const anyOf = (issue: SchemaIssue.AnyOf, path: ReadonlyArray<PropertyKey>): Problem => {
  // Several variants were tried: the one that got furthest is the one meant.
  let best: Problem | undefined
  for (const inner of issue.issues) {
    const candidate = walk(inner, path)
    if (best === undefined || further(candidate, best)) best = candidate
  }
  if (best !== undefined) return best
  const key = issue.ast.annotations?.[discriminatorAnnotation]
  const input = SchemaIssue.hasInput(issue) ? issue.input : undefined
  if (typeof key === "string" && isRecord(input)) {
    const values = issue.ast.types.flatMap((type) => discriminatorValues(type, key))
    return key in input
      ? { path: [...path, key], message: `must be one of ${values.join(", ")} (got ${shown(input[key])})` }
      : { path: [...path, key], message: "is required" }
  }
  // An enum value (a mode, a role) is public: quote it back.
  const got = typeof input === "string" && issue.ast.types.some((type) => type._tag === "Literal")
    ? shown(input)
    : kindOf(issue)
  return { path, message: `must be ${describe(issue.ast)} (got ${got})` }
}

// Deeper wins; at equal depth a later array index wins (`[1, "a"]` is an
// array of numbers gone wrong at [1]), then a wrong value beats a wrong type.
const further = (a: Problem, b: Problem): boolean => {
  if (a.path.length !== b.path.length) return a.path.length > b.path.length
  for (let i = 0; i < a.path.length; i++) {
    const x = a.path[i]
    const y = b.path[i]
    if (typeof x === "number" && typeof y === "number" && x !== y) return x > y
  }
  return b.mismatch === true && a.mismatch !== true
}

const discriminatorValues = (ast: SchemaAST.AST, key: string): ReadonlyArray<string> => {
  const target = ast.encoding?.[ast.encoding.length - 1]?.to ?? ast
  if (target._tag !== "Objects") return []
  const property = target.propertySignatures.find((signature) => signature.name === key)
  return property === undefined ? [] : literalsOf(property.type)
}

const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  if (ast._tag === "Literal") return [JSON.stringify(ast.literal)]
  if (ast._tag === "Union") return ast.types.flatMap(literalsOf)
  return []
}

/** What a schema accepts, in words: "a string", "an integer", `"auto"`... */
export const describe = (ast: SchemaAST.AST): string => {
  const expected = ast.annotations?.expected
  if (typeof expected === "string") return expected
  switch (ast._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "a boolean"
    case "Null":
      return "null"
    case "Literal":
      return JSON.stringify(ast.literal)
    case "Objects":
      return "an object"
    case "Arrays":
      return "an array"
    case "Suspend":
      return describe(ast.thunk())
    case "Union": {
      const members = flatten(ast)
      const names = Array.from(new Set(members.map(describe)))
      if (members.every((member) => member._tag === "Literal")) return `one of ${names.join(", ")}`
      return names.length === 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`
    }
    default:
      return "a valid value"
  }
}

// `NullOr(Union([A, B]))` reads "A, B or null", not "A or B or null".
const flatten = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> =>
  ast._tag === "Union" && typeof ast.annotations?.expected !== "string" ? ast.types.flatMap(flatten) : [ast]

// Numbers and booleans are echoed back; strings only as their kind, so a
// secret put in the wrong field never travels into logs or answers.
const withNumber = (message: string, issue: SchemaIssue.Issue): string => {
  const input = SchemaIssue.hasInput(issue) ? issue.input : undefined
  return typeof input === "number" ? `${message} (got ${input})` : message
}

const kindOf = (issue: SchemaIssue.Issue): string => SchemaIssue.hasInput(issue) ? kind(issue.input) : "nothing"

const kind = (input: unknown): string => {
  if (input === null) return "null"
  if (Array.isArray(input)) return "an array"
  switch (typeof input) {
    case "string":
      return "a string"
    case "number":
      return String(input)
    case "boolean":
      return String(input)
    case "object":
      return "an object"
    default:
      return typeof input
  }
}

/** A discriminator value is short and public (a role, a part type): quote it. */
const shown = (input: unknown): string =>
  typeof input === "string" ? JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input) : kind(input)

const isRecord = (input: unknown): input is { readonly [key: string]: unknown } =>
  typeof input === "object" && input !== null && !Array.isArray(input)
