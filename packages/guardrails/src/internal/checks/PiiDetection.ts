/**
 * `default.piiDetection {categories, redact, not}`: passes when the text holds no e-mail address,
 * phone number or card number (a digit run that passes the Luhn check). With `redact: true` (as a
 * mutator) it replaces each with `[REDACTED_EMAIL]`, `[REDACTED_PHONE]`, `[REDACTED_CREDIT_CARD]`
 * and passes.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

const Category = Schema.Literals(["email", "phone", "creditCard"])
type Category = typeof Category.Type

/** The Luhn checksum of a card number's digits. */
export const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return digits.length > 0 && sum % 10 === 0
}

interface Detector {
  readonly pattern: RegExp
  readonly accepts: (match: string) => boolean
  readonly label: string
}

const DETECTORS: Readonly<Record<Category, Detector>> = {
  email: { pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, accepts: () => true, label: "[REDACTED_EMAIL]" },
  creditCard: {
    pattern: /\b\d(?:[ -]?\d){12,18}\b/g,
    accepts: (match) => luhn(match.replace(/\D/g, "")),
    label: "[REDACTED_CREDIT_CARD]"
  },
  phone: {
    pattern: /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}[\s.-]?\d{3,4}\b/g,
    accepts: (match) => {
      const digits = match.replace(/\D/g, "").length
      return digits >= 7 && digits <= 15
    },
    label: "[REDACTED_PHONE]"
  }
}

// cards before phones: a spaced card number also looks like a phone number
const ORDER: ReadonlyArray<Category> = ["email", "creditCard", "phone"]

const redactAll = (
  text: string,
  categories: ReadonlyArray<Category>
): { text: string; found: Record<string, number> } => {
  const found: Record<string, number> = {}
  let result = text
  for (const category of ORDER) {
    if (!categories.includes(category)) continue
    const detector = DETECTORS[category]
    result = result.replace(detector.pattern, (match) => {
      if (!detector.accepts(match)) return match
      found[category] = (found[category] ?? 0) + 1
      return detector.label
    })
  }
  return { text: result, found }
}

export const piiDetection = Check.make({
  id: "default.piiDetection",
  parameters: Schema.Struct({
    categories: Schema.optionalKey(Schema.Array(Category)),
    redact: Schema.optionalKey(Schema.Boolean),
    not: Not
  }),
  run: (context, { categories = ORDER, not, redact }) =>
    Effect.sync(() => {
      // counts only: the matches themselves never go into results a client may read
      const { found } = redactAll(Check.textOf(context), categories)
      const total = Object.values(found).reduce((a, b) => a + b, 0)
      if (redact === true) {
        return {
          verdict: true,
          explanation: total === 0 ? "no PII found" : `redacted ${total} PII item${total === 1 ? "" : "s"}`,
          data: { found },
          rewrite: { scope: "all", apply: (text: string) => redactAll(text, categories).text }
        } satisfies Check.CheckResult
      }
      return Check.verdict(total === 0, not, {
        holds: "no PII found",
        fails: `found PII: ${Object.entries(found).map(([k, n]) => `${n} ${k}`).join(", ")}`
      }, { found })
    })
})
