/** `default.allUppercase {not}` and `default.allLowercase {not}`: every letter of the text has that case. */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

const caseCheck = (id: string, name: string, convert: (text: string) => string) =>
  Check.make({
    id,
    parameters: Schema.Struct({ not: Not }),
    run: (context, { not }) =>
      Effect.sync(() => {
        const text = Check.textOf(context)
        const holds = /\p{L}/u.test(text) && convert(text) === text
        return Check.verdict(holds, not, { holds: `the text is all ${name}`, fails: `the text is not all ${name}` })
      })
  })

export const allUppercase = caseCheck("default.allUppercase", "uppercase", (text) => text.toUpperCase())
export const allLowercase = caseCheck("default.allLowercase", "lowercase", (text) => text.toLowerCase())
