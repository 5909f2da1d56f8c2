/** Mutator `default.regexReplace {rule, redactText = "[REDACTED]"}`: replaces every match of `rule` in every text. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { compileRegex, Regex } from "./Parameters.ts"

export const regexReplace = Check.make({
  id: "default.regexReplace",
  parameters: Schema.Struct({ rule: Regex, redactText: Schema.optionalKey(Schema.String) }),
  run: (context, { redactText = "[REDACTED]", rule }) =>
    Effect.sync(() => {
      const regex = compileRegex(rule)
      const matcher = regex.matcher(Check.textOf(context))
      let matches = 0
      while (matcher.find()) matches++
      return {
        verdict: true,
        explanation: `replaced ${matches} match${matches === 1 ? "" : "es"} of /${rule}/`,
        data: { matches },
        rewrite: { scope: "all", apply: (text: string) => regex.matcher(text).replaceAll(() => redactText) }
      } satisfies Check.CheckResult
    })
})
