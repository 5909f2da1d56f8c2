/** Parameter pieces shared by the built-in checks. */
import { Schema } from "effect"
import { RE2JS } from "re2js"

/** `not: true` inverts the verdict. */
export const Not = Schema.optionalKey(Schema.Boolean)

/**
 * A caller's pattern, compiled for RE2 (re2js), which matches in time linear in the text: on
 * JavaScript's backtracking engine a pattern such as `(a+)+$` would hold the process on a
 * model's answer. RE2 has no backreferences and no lookaround.
 */
export const compileRegex = (source: string): RE2JS => RE2JS.compile(source)

const compiles = (source: string): boolean => {
  try {
    compileRegex(source)
    return true
  } catch {
    return false
  }
}

/** A regular expression source that RE2 accepts. */
export const Regex = Schema.String.check(
  Schema.makeFilter(compiles, {
    message: "must be a regular expression RE2 accepts (matching in linear time: no backreferences, no lookaround)"
  })
)

/** `any`, `all` or `none` of a list must be present. */
export const Operator = Schema.Literals(["any", "all", "none"])
export type Operator = typeof Operator.Type

/** Applies an operator to a list of found/not-found flags. */
export const holdsFor = (operator: Operator, found: ReadonlyArray<boolean>): boolean =>
  operator === "any" ? found.some(Boolean) : operator === "all" ? found.every(Boolean) : !found.some(Boolean)

export const NonNegative = Schema.Number.check(
  Schema.isGreaterThanOrEqualTo(0, { message: "must be at least 0" })
)

/** Whether `count` lies in the optional bounds. */
export const within = (count: number, min: number | undefined, max: number | undefined): boolean =>
  (min === undefined || count >= min) && (max === undefined || count <= max)

export const bounds = (min: number | undefined, max: number | undefined): string => `[${min ?? 0}, ${max ?? "∞"}]`

/** The first JSON value a text holds: the whole text, a fenced block, or the outermost braces. */
export const jsonIn = (text: string): { readonly value: unknown } | undefined => {
  const candidates = [text.trim()]
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  if (fenced?.[1] !== undefined) candidates.push(fenced[1].trim())
  const start = text.indexOf("{")
  const end = text.lastIndexOf("}")
  if (start !== -1 && end > start) candidates.push(text.slice(start, end + 1))
  for (const candidate of candidates) {
    try {
      return { value: JSON.parse(candidate) }
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined
}
