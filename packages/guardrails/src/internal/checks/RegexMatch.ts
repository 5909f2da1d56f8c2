/** `default.regexMatch {rule, not}`: passes when the text matches `rule`. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { compileRegex, Not, Regex } from "./Parameters.ts"

export const regexMatch = Check.make({
  id: "default.regexMatch",
  parameters: Schema.Struct({ rule: Regex, not: Not }),
  run: (context, { not, rule }) =>
    Effect.sync(() => {
      const found = compileRegex(rule).test(Check.textOf(context))
      return Check.verdict(found, not, {
        holds: `the text matches /${rule}/`,
        fails: `the text does not match /${rule}/`
      })
    })
})
