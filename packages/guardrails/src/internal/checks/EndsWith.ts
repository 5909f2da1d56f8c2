/** `default.endsWith {suffix, not}`: the text ends with `suffix` (trailing white space and a final period ignored). */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

export const endsWith = Check.make({
  id: "default.endsWith",
  parameters: Schema.Struct({ suffix: Schema.String, not: Not }),
  run: (context, { not, suffix }) =>
    Effect.sync(() => {
      const text = Check.textOf(context).trimEnd()
      const holds = text.endsWith(suffix) || text.endsWith(`${suffix}.`)
      return Check.verdict(holds, not, {
        holds: `the text ends with "${suffix}"`,
        fails: `the text does not end with "${suffix}"`
      })
    })
})
