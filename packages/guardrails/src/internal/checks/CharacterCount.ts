/** `default.characterCount {minCharacters, maxCharacters, not}`: the text's length is in bounds. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { bounds, NonNegative, Not, within } from "./Parameters.ts"

export const characterCount = Check.make({
  id: "default.characterCount",
  parameters: Schema.Struct({
    minCharacters: Schema.optionalKey(NonNegative),
    maxCharacters: Schema.optionalKey(NonNegative),
    not: Not
  }),
  run: (context, { maxCharacters, minCharacters, not }) =>
    Effect.sync(() => {
      // code points, so an emoji counts once
      const count = [...Check.textOf(context)].length
      const range = bounds(minCharacters, maxCharacters)
      return Check.verdict(within(count, minCharacters, maxCharacters), not, {
        holds: `${count} characters, within ${range}`,
        fails: `${count} characters, outside ${range}`
      }, { count })
    })
})
