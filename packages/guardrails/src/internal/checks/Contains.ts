/** `default.contains {words, operator}`: the text contains any, all or none of `words` (case-sensitive). */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { holdsFor, Operator } from "./Parameters.ts"

export const contains = Check.make({
  id: "default.contains",
  parameters: Schema.Struct({ words: Schema.Array(Schema.String), operator: Operator }),
  run: (context, { operator, words }) =>
    Effect.sync(() => {
      const text = Check.textOf(context)
      const found = words.filter((word) => text.includes(word))
      const passed = holdsFor(operator, words.map((word) => found.includes(word)))
      return {
        verdict: passed,
        explanation: `${found.length} of ${words.length} words found; operator ${operator} ${
          passed ? "holds" : "fails"
        }`,
        data: { found: found.length }
      }
    })
})
