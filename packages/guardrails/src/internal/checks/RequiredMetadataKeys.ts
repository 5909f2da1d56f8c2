/** `default.requiredMetadataKeys {metadataKeys, operator}`: `x-gateway-metadata` has some, all or none of the keys (operator any, all or none). */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { holdsFor, Operator } from "./Parameters.ts"

export const requiredMetadataKeys = Check.make({
  id: "default.requiredMetadataKeys",
  parameters: Schema.Struct({
    metadataKeys: Schema.Array(Schema.String),
    operator: Schema.optionalKey(Operator)
  }),
  run: (context, { metadataKeys, operator = "all" }) =>
    Effect.sync(() => {
      const present = metadataKeys.filter((key) => Object.hasOwn(context.metadata, key))
      const passed = holdsFor(operator, metadataKeys.map((key) => present.includes(key)))
      return {
        verdict: passed,
        explanation: `${present.length} of ${metadataKeys.length} metadata keys present; operator ${operator} ${
          passed ? "holds" : "fails"
        }`,
        data: { present, missing: metadataKeys.filter((key) => !present.includes(key)) }
      }
    })
})
