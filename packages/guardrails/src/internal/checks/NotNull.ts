/** `default.notNull {not}`: the text is not empty (white space only counts as empty). */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

export const notNull = Check.make({
  id: "default.notNull",
  parameters: Schema.Struct({ not: Not }),
  run: (context, { not }) =>
    Effect.sync(() =>
      Check.verdict(Check.textOf(context).trim().length > 0, not, {
        holds: "the text is not empty",
        fails: "the text is empty"
      })
    )
})
