/** `default.wordCount {minWords, maxWords, not}`: the number of words is in bounds. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { bounds, NonNegative, Not, within } from "./Parameters.ts"

export const countWords = (text: string): number => text.split(/\s+/).filter((word) => word.length > 0).length

export const wordCount = Check.make({
  id: "default.wordCount",
  parameters: Schema.Struct({
    minWords: Schema.optionalKey(NonNegative),
    maxWords: Schema.optionalKey(NonNegative),
    not: Not
  }),
  run: (context, { maxWords, minWords, not }) =>
    Effect.sync(() => {
      const count = countWords(Check.textOf(context))
      const range = bounds(minWords, maxWords)
      return Check.verdict(within(count, minWords, maxWords), not, {
        holds: `${count} words, within ${range}`,
        fails: `${count} words, outside ${range}`
      }, { count })
    })
})
