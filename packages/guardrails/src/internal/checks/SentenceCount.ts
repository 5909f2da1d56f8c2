/** `default.sentenceCount {minSentences, maxSentences, not}`: the number of sentences is in bounds. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { bounds, NonNegative, Not, within } from "./Parameters.ts"

/** Sentences end with `.`, `!` or `?`; a trailing fragment without one counts as a sentence too. */
export const countSentences = (text: string): number =>
  text.split(/[.!?]+(?:\s+|$)/).filter((part) => part.trim().length > 0).length

export const sentenceCount = Check.make({
  id: "default.sentenceCount",
  parameters: Schema.Struct({
    minSentences: Schema.optionalKey(NonNegative),
    maxSentences: Schema.optionalKey(NonNegative),
    not: Not
  }),
  run: (context, { maxSentences, minSentences, not }) =>
    Effect.sync(() => {
      const count = countSentences(Check.textOf(context))
      const range = bounds(minSentences, maxSentences)
      return Check.verdict(within(count, minSentences, maxSentences), not, {
        holds: `${count} sentences, within ${range}`,
        fails: `${count} sentences, outside ${range}`
      }, { count })
    })
})
