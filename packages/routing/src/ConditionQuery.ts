/**
 * The queries of `conditional` routing: MongoDB-style filters over what a request says about
 * itself, `{ metadata, params, url: { pathname } }`. Evaluation is sift's, restricted to the
 * operators of extensions.md; each query is checked and compiled once, when its config is.
 *
 * Every key of a query counts: `{ "metadata.plan": "pro", $or: [...] }` needs both, and
 * `{ $regex, $options }` reads both (unlike evaluators that stop at the first `$or` or `$regex`).
 *
 * `$regex` runs on RE2 (re2js), not on JavaScript's backtracking engine: a caller writes the
 * pattern, and a pattern such as `(a+)+$` would otherwise hold the process for minutes on a
 * short metadata value. RE2 matches in time linear in the input; the price is that it has no
 * backreferences and no lookahead, and a pattern that uses them is refused at compile time.
 */
import { Endpoint, GatewayError, GatewayRequest } from "@switchyard/core"
import { Effect } from "effect"
import { RE2JS } from "re2js"
import sift from "sift"

/** What a query sees of a request. */
export interface RoutingView {
  /** `x-gateway-metadata`. */
  readonly metadata: Readonly<Record<string, string>>
  /** The request body. */
  readonly params: GatewayRequest.JsonObject
  readonly url: { readonly pathname: string }
}

/** A compiled query. */
export type Matcher = (view: RoutingView) => boolean

/** The operators a query may use; any other `$` key is refused when the config is compiled. */
export const operators = [
  "$eq",
  "$ne",
  "$gt",
  "$gte",
  "$lt",
  "$lte",
  "$in",
  "$nin",
  "$regex",
  "$exists",
  "$and",
  "$or",
  "$not"
] as const

type SiftOptions = Parameters<typeof sift.createEqualsOperation>[2]

// `$options` is no operator of its own: it is read beside `$regex`, and refused anywhere else
const siftOperations = {
  $eq: sift.$eq,
  $ne: sift.$ne,
  $gt: sift.$gt,
  $gte: sift.$gte,
  $lt: sift.$lt,
  $lte: sift.$lte,
  $in: sift.$in,
  $nin: sift.$nin,
  $regex: (pattern: string, ownerQuery: { readonly $options?: unknown }, options: SiftOptions) =>
    sift.createEqualsOperation(regexTester(pattern, ownerQuery.$options), ownerQuery, options),
  $options: sift.$options,
  $exists: sift.$exists,
  $and: sift.$and,
  $or: sift.$or,
  $not: sift.$not
}

const urlOf = (endpoint: Endpoint.Endpoint) => Object.freeze({ pathname: `/v1${Endpoint.paths[endpoint]}` })

// built once: the view of a request allocates no more than itself
const urls: Readonly<Record<Endpoint.Endpoint, RoutingView["url"]>> = {
  "chat.completions": urlOf("chat.completions"),
  completions: urlOf("completions"),
  embeddings: urlOf("embeddings")
}

/** What a query sees of this request; `url.pathname` is the endpoint's path under `/v1`. */
export const viewOf = (request: GatewayRequest.GatewayRequest): RoutingView => ({
  metadata: request.context.metadata,
  params: request.body,
  url: urls[request.endpoint]
})

/**
 * Checks a query against the supported operators and compiles it; a query that uses another
 * operator, or an operand of the wrong shape, is an `InvalidRequest` naming `path` and the key.
 *
 * @example
 * import { ConditionQuery } from "@switchyard/routing"
 * import { Effect } from "effect"
 * const matches = Effect.runSync(ConditionQuery.compile({ "metadata.plan": { $in: ["pro", "team"] } }, "query"))
 * matches({ metadata: { plan: "pro" }, params: {}, url: { pathname: "/v1/chat/completions" } }) // true
 */
export const compile = (
  query: GatewayRequest.JsonObject,
  path: string
): Effect.Effect<Matcher, GatewayError.InvalidRequest> => {
  const problem = checkFilter(query, path)
  if (problem !== undefined) return Effect.fail(invalid(problem.path, problem.rule))
  return Effect.try({
    try: (): Matcher => sift.createQueryTester(query, { operations: siftOperations }),
    catch: (cause) => invalid(path, cause instanceof Error ? cause.message : String(cause))
  })
}

interface Problem {
  readonly path: string
  readonly rule: string
}

const invalid = (path: string, rule: string) =>
  new GatewayError.InvalidRequest({ message: `${path}: ${rule}`, param: path })

const isOperator = (key: string): boolean => key.startsWith("$")

const keyPath = (path: string, key: string): string =>
  /^[$A-Za-z_][$\w]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

const unsupported = (key: string): string => `unsupported operator ${key} (supported: ${operators.join(" ")})`

/** An operator where a filter expects a field name: only `$and` and `$or` may stand there. */
const misplaced = (path: string, key: string): Problem => ({
  path: keyPath(path, key),
  rule: operators.some((operator) => operator === key)
    ? `${key} applies to a field, e.g. { "metadata.plan": { "${key}": … } }`
    : unsupported(key)
})

/** A filter document: field conditions and `$and` / `$or` lists of filters. */
const checkFilter = (filter: unknown, path: string): Problem | undefined => {
  if (!GatewayRequest.isJsonObject(filter)) return { path, rule: "must be an object" }
  for (const [key, value] of Object.entries(filter)) {
    const at = keyPath(path, key)
    const problem = key === "$and" || key === "$or"
      ? checkFilterList(value, at)
      : isOperator(key)
      ? misplaced(path, key)
      : checkFieldCondition(value, at)
    if (problem !== undefined) return problem
  }
  return undefined
}

const checkFilterList = (value: unknown, path: string): Problem | undefined => {
  if (!Array.isArray(value) || value.length === 0) return { path, rule: "must be a non-empty array of queries" }
  for (const [index, filter] of value.entries()) {
    const problem = checkFilter(filter, `${path}[${index}]`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** A field's condition: a value it must equal, or an object of operators. */
const checkFieldCondition = (value: unknown, path: string): Problem | undefined => {
  if (!GatewayRequest.isJsonObject(value)) return undefined
  const keys = Object.keys(value)
  const operatorKeys = keys.filter(isOperator)
  if (operatorKeys.length === 0) return undefined // an object the field must equal
  if (operatorKeys.length !== keys.length) {
    return { path, rule: "must not mix operators ($…) with field names" }
  }
  return checkOperators(value, path)
}

const checkOperators = (expression: GatewayRequest.JsonObject, path: string): Problem | undefined => {
  for (const [key, operand] of Object.entries(expression)) {
    const at = keyPath(path, key)
    const problem = checkOperator(key, operand, at, expression)
    if (problem !== undefined) return problem
  }
  return undefined
}

const REGEX_FLAGS = /^[imsu]*$/

const checkOperator = (
  key: string,
  operand: unknown,
  path: string,
  expression: GatewayRequest.JsonObject
): Problem | undefined => {
  switch (key) {
    case "$eq":
    case "$ne":
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return undefined
    case "$in":
    case "$nin":
      return Array.isArray(operand) ? undefined : { path, rule: "must be an array" }
    case "$exists":
      return typeof operand === "boolean" ? undefined : { path, rule: "must be true or false" }
    case "$regex":
      return checkRegex(operand, isRegexFlags(expression.$options) ? expression.$options : undefined, path)
    case "$options":
      return expression.$regex === undefined
        ? { path, rule: "is only allowed beside $regex" }
        : isRegexFlags(operand)
        ? undefined
        : { path, rule: "must be a string of the flags i, m, s, u" }
    case "$not":
      return GatewayRequest.isJsonObject(operand) && Object.keys(operand).length > 0 &&
          Object.keys(operand).every(isOperator)
        ? checkOperators(operand, path)
        : { path, rule: "must be an object of operators, such as { \"$regex\": \"^gpt\" }" }
    default:
      return { path, rule: unsupported(key) }
  }
}

const isRegexFlags = (value: unknown): value is string => typeof value === "string" && REGEX_FLAGS.test(value)

// `u` needs no bit: RE2 always reads the pattern and the input as Unicode
const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL
}

const compileRegex = (pattern: string, flags: string | undefined): RE2JS => {
  let bits = 0
  for (const flag of flags ?? "") bits |= FLAG_BITS[flag] ?? 0
  return RE2JS.compile(pattern, bits)
}

/** Whether a string contains a match, as JavaScript's `RegExp.test` answers, in linear time. */
const regexTester = (pattern: string, flags: unknown) => {
  const regex = compileRegex(pattern, isRegexFlags(flags) ? flags : undefined)
  return (value: unknown): boolean => typeof value === "string" && regex.test(value)
}

const checkRegex = (pattern: unknown, flags: string | undefined, path: string): Problem | undefined => {
  if (typeof pattern !== "string") return { path, rule: "must be a string" }
  try {
    compileRegex(pattern, flags)
    return undefined
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : "is not valid"
    return {
      path,
      rule:
        `must be a regular expression RE2 accepts (matching in linear time: no backreferences, no lookaround): ${reason}`
    }
  }
}
