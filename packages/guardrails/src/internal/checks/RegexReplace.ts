/** Mutator `default.regexReplace {rule, redactText = "[REDACTED]"}`: replaces every match of `rule` in every text. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Regex } from "./Parameters.ts"

export const regexReplace = Check.make({
  id: "default.regexReplace",
  parameters: Schema.Struct({ rule: Regex, redactText: Schema.optionalKey(Schema.String) }),
  run: (context, { redactText = "[REDACTED]", rule }) =>
    Effect.sync(() => {
      const matches = Check.textOf(context).match(new RegExp(rule, "g"))?.length ?? 0
      return {
        verdict: true,
        explanation: `replaced ${matches} match${matches === 1 ? "" : "es"} of /${rule}/`,
        data: { matches },
        rewrite: { scope: "all", apply: (text: string) => text.replace(new RegExp(rule, "g"), () => redactText) }
      } satisfies Check.CheckResult
    })
})
