/** `default.jsonKeys {keys, operator}`: the JSON object in the text has some, all or none of `keys` (operator any, all or none). */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { holdsFor, jsonIn, Operator } from "./Parameters.ts"

export const jsonKeys = Check.make({
  id: "default.jsonKeys",
  parameters: Schema.Struct({ keys: Schema.Array(Schema.String), operator: Operator }),
  run: (context, { keys, operator }) =>
    Effect.sync(() => {
      const found = jsonIn(Check.textOf(context))
      const value = found?.value
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return { verdict: false, explanation: "the text holds no JSON object" }
      }
      const present = keys.filter((key) => Object.hasOwn(value, key))
      const passed = holdsFor(operator, keys.map((key) => present.includes(key)))
      return {
        verdict: passed,
        explanation: `${present.length} of ${keys.length} keys present; operator ${operator} ${
          passed ? "holds" : "fails"
        }`,
        data: { present, missing: keys.filter((key) => !present.includes(key)) }
      }
    })
})
