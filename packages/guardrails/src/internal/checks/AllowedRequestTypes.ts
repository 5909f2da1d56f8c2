/**
 * `default.allowedRequestTypes {allowedTypes | blockedTypes, not}`: the request type
 * (`chatComplete`, `complete`, `embed`) is allowed, or not blocked.
 */
import { Effect, Schema } from "effect"
import * as Check from "../../Check.ts"
import { Not } from "./Parameters.ts"

export const allowedRequestTypes = Check.make({
  id: "default.allowedRequestTypes",
  parameters: Schema.Struct({
    allowedTypes: Schema.optionalKey(Schema.Array(Schema.String)),
    blockedTypes: Schema.optionalKey(Schema.Array(Schema.String)),
    not: Not
  }),
  run: (context, { allowedTypes, blockedTypes, not }) =>
    Effect.sync(() => {
      const type = context.requestType
      const holds = (allowedTypes === undefined || allowedTypes.includes(type)) &&
        (blockedTypes === undefined || !blockedTypes.includes(type))
      return Check.verdict(holds, not, {
        holds: `request type "${type}" is allowed`,
        fails: `request type "${type}" is not allowed`
      })
    })
})
